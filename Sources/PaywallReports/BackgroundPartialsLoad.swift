import PaywallSQLite

/// Reads and decodes the stored day partials on a second, read-only connection and thread, leaving
/// out the days the caller rescans, and hands them over a few at a time: the caller merges them
/// into the ``PresentationScan`` the reader prepared first, while the reader decodes the next ones
/// (reading and decoding the partials, and merging them, are the nightly job's largest steps after
/// the fold, and each gets a core). It needs write-ahead logging, so the reader's snapshot and the caller's write transaction
/// run side by side; the caller only writes the days the reader leaves out.
final class BackgroundPartialsLoad: Sendable {
    /// What the reader hands over: first the empty scan it prepared, then each decoded partial by its day's bounds.
    enum Item: Sendable {
        case scan(PresentationScan)
        case partial(start: Int64, end: Int64, DayPartial)
    }

    private let reader: BackgroundReader<Item>

    /// Starts preparing an empty scan (`scan` with the store's placements and customers) and
    /// reading every stored partial whose `day_start` is not in `skipping`.
    ///
    /// - Throws: `StorageError` when the second connection cannot be opened.
    init(path: String, scan: PresentationScan, skipping: Set<Int64>) throws {
        reader = try BackgroundReader(path: path, capacity: 4, name: "PaywallReports.Nightly.partials") {
            connection, send in
            try connection.transaction(.deferred) { db in
                var scan = scan
                try scan.prepare(db)
                guard send(.scan(consume scan)) else { return }  // the only copy: merging copies nothing
                try DayPartial.forEachStored(db, skipping: skipping) { start, end, partial in
                    send(.partial(start: start, end: end, partial))
                }
            }
        }
    }

    /// Returns the prepared scan with every partial read merged in (in day order, as they come);
    /// rethrows the reader's error (``UnreadablePartial`` among them). Returns once the reader has
    /// stopped; call it once.
    func scan() throws -> PresentationScan {
        defer { reader.stop() }
        guard case .scan(var scan)? = try reader.next() else {
            preconditionFailure("the partials reader sends its scan first")
        }
        while let next = try reader.next() {
            guard case .partial(let start, let end, let partial) = next else { continue }
            scan.merge(partial, start: start, end: end)
        }
        return scan
    }

    /// Stops the reader without reading on (after a failure of the caller's own work).
    func stop() {
        reader.stop()
    }
}
