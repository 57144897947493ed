import Foundation
import PaywallLock
import Testing

struct FileLockTests {
    /// A fresh folder for one test's lock files, removed with the value.
    final class Folder {
        let path = NSTemporaryDirectory() + "file-lock-" + UUID().uuidString
        init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test func oneHolderAtATimeAndTheOthersReadWhatTheFileSays() throws {
        // Given a lock taken on a new file, which names its holder
        let folder = Folder()
        let path = folder.path + "/a.lock"
        #expect(!FileLock.isHeld(path: path))
        let first = try FileLock(path: path)
        first.write("holder one\n")
        // Then a second try fails at once with what the file says, and the file is seen as held
        #expect(throws: FileLock.Failure.held(contents: "holder one\n")) { try FileLock(path: path) }
        #expect(FileLock.isHeld(path: path))
        #expect(first.contents() == "holder one\n")
        // When it is released, Then the file stays, is free, and the next holder takes it
        first.release()
        first.release()
        #expect(first.descriptor == -1)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileLock.isHeld(path: path))
        let second = try FileLock(path: path)
        // And a shorter text replaces the longer one whole
        second.write("two")
        #expect(second.contents() == "two")
        // When it is removed, Then the file is gone and no lock remains
        second.removeAndRelease()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileLock.isHeld(path: path))
    }

    @Test func aLockOnAFileNoLongerAtItsPathSaysSo() throws {
        let folder = Folder()
        let path = folder.path + "/b.lock"
        let lock = try FileLock(path: path)
        #expect(lock.isAtPath)
        // When the file is removed, or removed and made again, Then the lock is no longer on the path's file
        unlink(path)
        #expect(!lock.isAtPath)
        FileManager.default.createFile(atPath: path, contents: Data())
        #expect(!lock.isAtPath)
        let other = try FileLock(path: path)
        #expect(other.isAtPath)
    }

    @Test func aFileThatCannotBeCreatedSaysWhy() {
        let folder = Folder()
        #expect(throws: FileLock.Failure.cannotOpen(reason: "No such file or directory")) {
            try FileLock(path: folder.path + "/missing/c.lock")
        }
    }

    @Test func droppingTheValueReleasesTheLock() throws {
        let folder = Folder()
        let path = folder.path + "/d.lock"
        do {
            let lock = try FileLock(path: path)
            #expect(FileLock.isHeld(path: path) && lock.descriptor >= 0)
        }
        #expect(!FileLock.isHeld(path: path))
    }
}
