import CSQLite
import Foundation

/// How a connection waits for a lock another connection holds: it tries again every millisecond
/// until the timeout, instead of with SQLite's own busy handler.
///
/// Design note: SQLite's own handler sleeps longer the longer it has waited (1, 2, 5 … then 100 ms
/// between tries). Behind a writer that takes the lock again right after each commit (a report
/// folding its rollups chunk after chunk, or a collector committing group after group) such a
/// waiter wakes up while the lock is held and misses every short gap between the transactions, so
/// it can wait for the whole run. Trying every millisecond finds those gaps; a failed try costs a
/// few system calls. The timeout is a lower bound: each try sleeps at least a millisecond.
enum BusyWait {
    /// Installs the handler on `handle` with `timeoutMilliseconds` (0: never wait, fail at once).
    static func install(_ handle: OpaquePointer, timeoutMilliseconds: Int32) {
        guard timeoutMilliseconds > 0 else {
            sqlite3_busy_handler(handle, nil, nil)
            return
        }
        sqlite3_busy_handler(
            handle, retryEveryMillisecond, UnsafeMutableRawPointer(bitPattern: Int(timeoutMilliseconds)))
    }

    /// SQLite calls this with the number of tries so far; returning 0 gives up (`SQLITE_BUSY`).
    private static let retryEveryMillisecond: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = {
        context, tries in
        guard Int(tries) < Int(bitPattern: context) else { return 0 }
        usleep(1_000)
        return 1
    }
}
