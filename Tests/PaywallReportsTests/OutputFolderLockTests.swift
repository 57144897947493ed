import Foundation
import PaywallTestSupport
import Testing

@testable import PaywallReports

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The output folder's lock (`runs/.lock`) is free as soon as a run returns, even while a child
/// process that inherited the lock's descriptor (forked by another thread meanwhile) is still alive.
struct OutputFolderLockTests {
    /// Whether another open file could take the folder's lock now (it is taken and released at once).
    func lockIsFree(_ out: String) -> Bool {
        let descriptor = open(out + "/runs/.lock", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    @Test func aCommittedRunReleasesTheLockWhileAChildHoldsItsDescriptor() throws {
        // Given a run in progress, and a child process holding a copy of its lock's descriptor
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let out = folder.path("out")
        let run = try OutputFolder(destination: out)
        try run.write("report.csv", Data("a,b\r\n".utf8))
        #expect(!lockIsFree(out))
        let child = try DescriptorHolder(holding: run.lockDescriptor)
        defer { child.stop() }
        // When the run commits
        try run.commit()
        // Then, with the child still alive, the lock is free and the next run starts
        #expect(child.isRunning)
        #expect(run.lockDescriptor == -1)
        #expect(lockIsFree(out))
        let next = try OutputFolder(destination: out)
        try next.write("report.csv", Data("c,d\r\n".utf8))
        try next.commit()
        #expect(try String(contentsOfFile: out + "/report.csv", encoding: .utf8) == "c,d\r\n")
    }

    @Test func aDiscardedRunReleasesTheLockWhileAChildHoldsItsDescriptor() throws {
        // Given a run in progress, and a child process holding a copy of its lock's descriptor
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let out = folder.path("out")
        try OutputFolder(destination: out).commit()  // the folders exist, so the discarded run keeps them
        var run: OutputFolder? = try OutputFolder(destination: out)
        let child = try DescriptorHolder(holding: try #require(run).lockDescriptor)
        defer { child.stop() }
        // When the run is dropped without committing (a failed run)
        run = nil
        // Then, with the child still alive, the lock is free
        #expect(run == nil && child.isRunning)
        #expect(lockIsFree(out))
    }
}
