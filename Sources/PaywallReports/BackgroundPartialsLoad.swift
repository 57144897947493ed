import PaywallSQLite

/// Reads and decodes the stored day partials on a second, read-only connection and thread, from
/// the moment it is made: the nightly job starts it right after its rollup refresh, so the reading
/// runs beside the subscription state and the partials update (one core each), and merges what it
/// read once the day partials are up to date, leaving out the days it recomputed (their stored
/// partials were read before they changed). It needs write-ahead logging, so the reader's snapshot
/// and the caller's write transaction run side by side; only the caller writes partials, and only
/// the days it leaves out.
///
/// Design note: the days the run recomputes are known only once its write transaction has planned
/// them, so every stored partial is read and the recomputed days' are dropped when merged (one day
/// of a window's thirty, read for nothing). The reader holds at most ``capacity`` decoded partials
/// ahead of the merge, then waits: they are held while the subscription state is updated, and the
/// bound keeps them under the merged scan's own size, the run's peak.
final class BackgroundPartialsLoad: Sendable {
    /// A decoded partial by its day's bounds; `nil` when the stored bytes cannot be read (an error
    /// only if that day is merged: a day the run recomputes anyway needs none of them).
    struct Item: Sendable {
        var start: Int64
        var end: Int64
        var partial: DayPartial?
    }

    /// Decoded partials the reader holds ahead of the merge (about 4 MB each at 333k events a day).
    static let capacity = 16

    private let reader: BackgroundReader<Item>

    /// Starts reading every stored partial, in day order.
    ///
    /// - Throws: `StorageError` when the second connection cannot be opened.
    init(path: String) throws {
        reader = try BackgroundReader(path: path, capacity: Self.capacity, name: "PaywallReports.Nightly.partials") {
            connection, send in
            try connection.transaction(.deferred) { db in
                try DayPartial.forEachStored(db) { start, end, partial in
                    send(Item(start: start, end: end, partial: partial))
                }
            }
        }
    }

    /// Merges every partial read into `scan` (prepared by the caller, in day order, as they come),
    /// but those whose `day_start` is in `skipping`; rethrows the reader's error, and throws
    /// ``UnreadablePartial`` for a merged day whose bytes could not be read. Returns once the reader
    /// has stopped; call it once.
    func scan(into scan: PresentationScan, skipping: Set<Int64>) throws -> PresentationScan {
        defer { reader.stop() }
        var scan = scan
        while let item = try reader.next() {
            try Self.merge(item, into: &scan, skipping: skipping)
        }
        return scan
    }

    private static func merge(_ item: Item, into scan: inout PresentationScan, skipping: Set<Int64>) throws {
        if skipping.contains(item.start) { return }
        guard let partial = item.partial else { throw UnreadablePartial() }
        scan.merge(partial, start: item.start, end: item.end)
    }

    /// Stops the reader without merging (the run recomputes every day, or failed); returns once
    /// its thread has ended. Stopping again is harmless.
    func stop() {
        reader.stop()
    }
}
