import Dispatch
import Foundation
import PaywallLock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a staged output file's data to disk while the file is still being written, so that
/// ``OutputFile/commit()``'s `fsync` waits only for the last few megabytes.
///
/// Design note: Linux starts writing dirty pages back only once they pass a share of memory
/// (`dirty_background_ratio`, 10 % by default: gigabytes on a large machine), so without this an
/// export's whole file was written by the final `fsync`, after all the CPU work: about 1 s per 200 MB
/// on the 2-core machine, which made `export events --out` slower than `sqlite3 -csv` into a file it
/// never syncs. A thread looks at the file's size every 50 ms and runs `fdatasync` once 8 MiB more
/// were written, so the disk writes while the caller formats rows. The final `fsync` still runs.
final class StagedWriteback: Sendable {
    private struct State {
        var stopped = false
        var failure: String?
        var synced: off_t = 0
    }

    /// Bytes written since the last sync that start one.
    static let threshold: off_t = 8 << 20

    private let state = Lock(State())
    private let stop = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// Starts watching `descriptor`, which must stay open until ``finish()`` returns.
    init(descriptor: Int32) {
        let thread = Thread { [self] in watch(descriptor) }
        thread.name = "OutputFile.writeback"
        thread.start()
    }

    /// The file's size at the end of the last background sync (for tests).
    var syncedBytes: off_t { state.withLock { $0.synced } }

    /// Stops the thread (waiting for a sync in progress); returns why a background sync failed, if one did.
    func finish() -> String? {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first {
            stop.signal()
            done.wait()
        }
        return state.withLock { $0.failure }
    }

    private func watch(_ descriptor: Int32) {
        defer { done.signal() }
        var synced: off_t = 0
        while stop.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return }
            guard info.st_size - synced >= Self.threshold else { continue }
            #if canImport(Darwin)
                let result = fsync(descriptor)
            #else
                let result = fdatasync(descriptor)
            #endif
            if result != 0 {
                let reason = String(cString: strerror(errno))
                state.withLock { $0.failure = "writing the file to disk failed (\(reason))" }
                return
            }
            synced = info.st_size
            state.withLock { $0.synced = synced }
        }
    }
}
