import Dispatch
import Foundation
import PaywallSQLite
import Synchronization

/// Loads the stored day partials into a ``PresentationScan`` on a second, read-only connection and
/// thread, leaving out the days the caller is rescanning at the same time: the nightly job's two
/// largest steps after the fold (rescanning the dirty days, reading every other day's partial) then
/// use both cores. It needs write-ahead logging, so the reader's snapshot and the caller's write
/// transaction run side by side; the caller only writes the days the reader leaves out.
final class BackgroundPartialsLoad: Sendable {
    private let outcome = Mutex<Result<PresentationScan, any Error>?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts loading every stored partial whose `day_start` is not in `skipping`, for the report
    /// days `days` and a cohort window of `windowMs`.
    ///
    /// - Throws: `StorageError` when the second connection cannot be opened.
    init(path: String, days: [ReportDay], windowMs: Int64, skipping: Set<Int64>) throws {
        let reader = try Connection(path: path, options: OpenOptions(create: false, wal: false))
        let thread = Thread { [self] in
            let result = Result {
                try reader.transaction(.deferred) { db in
                    let newest = Int64(try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Rollup.newestKey)])?.string ?? "")
                    var scan = PresentationScan(days: days, placementFilter: nil, windowMs: windowMs,
                                                newestEventAt: newest ?? .min)
                    try scan.load(partials: db, skipping: skipping)
                    return scan
                }
            }
            self.outcome.withLock { $0 = result }
            self.finished.signal()
        }
        thread.start()
    }

    /// Waits for the load and hands the scan over (the only copy, so merging into it copies no
    /// array); rethrows its error (``UnreadablePartial`` among them). Call it once.
    func wait() throws -> PresentationScan {
        finished.wait()
        let result = outcome.withLock { state in
            defer { state = nil }
            return state
        }
        guard let result else { preconditionFailure("BackgroundPartialsLoad.wait() called twice") }
        return try result.get()
    }
}
