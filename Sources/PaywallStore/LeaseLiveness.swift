import Foundation
import PaywallLock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether the holder of a delivery lease is still alive: the pass that holds a lease also holds an
/// exclusive `flock` on `<database>-<lease key>.lock` and writes its owner name into that file. The
/// system drops the `flock` when the process ends, however it ends (a SIGKILL, a crash, an app
/// killed in the background), so a later pass that gets the `flock` while the file still names the
/// lease's owner knows that owner is gone and may take its lease at once instead of waiting for it
/// to expire (120 s for the uploader).
///
/// Only that one case shortens the wait. A lease taken after its expiry while the old holder still
/// runs (and still holds the `flock`) is not backed by the file; it is then left to expire as
/// before, so a live pass is never taken over. Where the lock file cannot be opened (a store in
/// memory, a folder that cannot be written) the lease works by expiry alone.
///
/// Design note: a pass holds the `flock` only while it runs. On iOS a pass runs inside a background
/// task, so the app is not suspended holding it (the system ends an app suspended with a lock in a
/// shared container).
enum LeaseLiveness {
    /// The descriptors of the `flock`s held by this process's passes, by lock path and owner.
    private static let held = Lock<[String: Int32]>([:])

    /// The lock file of the lease `key` of the database at `databasePath`, or nil for a store
    /// without a file.
    static func lockPath(databasePath: String, key: String) -> String? {
        guard !databasePath.isEmpty, databasePath != ":memory:", !databasePath.hasPrefix("file::memory:") else {
            return nil
        }
        return databasePath + "-" + key + ".lock"
    }

    /// Whether the lease's `owner` is known to be gone: the lock file is free and names it.
    static func isGone(owner: String, lockPath: String) -> Bool {
        let handle = open(lockPath, O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        guard flock(handle, LOCK_SH | LOCK_NB) == 0 else { return false }
        defer { _ = flock(handle, LOCK_UN) }
        return readName(handle) == owner
    }

    /// Takes the `flock` for `owner` and writes its name into the file; does nothing when another
    /// pass (in this process or another) holds it or the file cannot be opened.
    static func hold(owner: String, lockPath: String) {
        let slot = lockPath + "\n" + owner
        guard held.withLock({ $0[slot] == nil }) else { return }
        let handle = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard handle >= 0 else { return }
        guard flock(handle, LOCK_EX | LOCK_NB) == 0 else {
            close(handle)
            return
        }
        let name = Array(owner.utf8)
        _ = ftruncate(handle, 0)
        _ = name.withUnsafeBytes { pwrite(handle, $0.baseAddress, $0.count, 0) }
        held.withLock { $0[slot] = handle }
    }

    /// Gives up `owner`'s `flock`, if this process holds it.
    static func release(owner: String, lockPath: String) {
        let slot = lockPath + "\n" + owner
        guard let handle = held.withLock({ $0.removeValue(forKey: slot) }) else { return }
        close(handle)
    }

    private static func readName(_ handle: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 4_096)
        let count = pread(handle, &bytes, bytes.count, 0)
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    }
}
