import CSQLite
import Foundation
import PaywallLock

/// How a connection waits for a lock another connection holds: it tries again every millisecond
/// until the timeout, instead of with SQLite's own busy handler.
///
/// Design note: SQLite's own handler sleeps longer the longer it has waited (1, 2, 5 … then 100 ms
/// between tries). Behind a writer that takes the lock again right after each commit (a report
/// folding its rollups chunk after chunk, or a collector committing group after group) such a
/// waiter wakes up while the lock is held and misses every short gap between the transactions, so
/// it can wait for the whole run. Trying every millisecond finds those gaps; a failed try costs a
/// few system calls. The timeout is a lower bound: each try sleeps at least a millisecond.
final class BusyWait: Sendable {
    /// How long a connection waits for a lock, in milliseconds (0: never wait, fail at once).
    let timeoutMilliseconds: Int32
    private let retried = Lock(0)

    /// A wait of `timeoutMilliseconds`.
    init(timeoutMilliseconds: Int32) { self.timeoutMilliseconds = timeoutMilliseconds }

    /// How many times a connection with this wait has tried again so far (tests wait for it to see
    /// that a connection really waited for a lock).
    var retries: Int { retried.withLock { $0 } }

    /// Installs `wait` on `handle` (nil, or a timeout of 0: never wait). The handle's owner keeps
    /// `wait` alive as long as it is installed.
    static func install(_ handle: OpaquePointer, _ wait: BusyWait?) {
        guard let wait, wait.timeoutMilliseconds > 0 else {
            sqlite3_busy_handler(handle, nil, nil)
            return
        }
        sqlite3_busy_handler(handle, retryEveryMillisecond, Unmanaged.passUnretained(wait).toOpaque())
    }

    /// SQLite calls this with the number of tries so far; returning 0 gives up (`SQLITE_BUSY`).
    private static let retryEveryMillisecond: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = {
        context, tries in
        guard let context else { return 0 }
        let wait = Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue()
        guard tries < wait.timeoutMilliseconds else { return 0 }
        wait.retried.withLock { $0 += 1 }
        usleep(1_000)
        return 1
    }
}
