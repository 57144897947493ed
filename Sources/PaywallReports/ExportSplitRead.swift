import Dispatch
import Foundation
import PaywallSQLite

/// An events export (CSV or NDJSON) read by two threads, each on a connection of its own, both on one snapshot:
/// the rowids are cut into ranges, each reader takes the next range nobody has taken, and the
/// formatting thread writes the ranges in order, so the file is the one a single reader writes.
/// At most ``window`` ranges are read ahead of the one being written.
///
/// Both read transactions begin while a third connection holds the write lock for a moment, so no
/// commit can land between them and they see the same rows. When that cannot be had (a store in memory, a
/// store opened read-only, the write lock not granted within ``lockWait``, rowids that do
/// not fit the ranges) the export reads on one thread as before: ``init(connection:values:columns:rangeRowids:)``
/// returns `nil`.
///
/// Design note: once a column declared `TEXT` was read with one call and the CSV writer wrote
/// into a raw buffer, the one reading thread set the export's pace (1M events: reading 0.68 s of
/// CPU, formatting 0.38 s, wall 0.70 s). Two readers and the formatter share the 2 cores instead.
/// An earlier try of the same split, before those two changes, had made the export slower
/// (1.12× wall), when formatting alone kept a core busy. Readers that took every other range
/// (even, odd) each idled a sixth of the time at 10M events: the formatter waited for the one
/// behind while the one ahead had filled its queue; taking the next free range keeps both busy.
/// With three busy threads on two cores, fair scheduling left the formatter (the one the others
/// wait for) two thirds of a core: the readers run 5 steps of niceness below it (Linux), which
/// took the 10M export from 6.6 to 5.5 s. Open dead letters are read once, as rowids, for both
/// readers (``DeliveryStates``).
///
/// Tried and dropped: the readers reading the store through a memory map (`PRAGMA mmap_size`, which
/// the system SQLite caps at 2 GiB) instead of a `pread` per page. At 10.3M events (a 3.5 GB store, six
/// alternated pairs of the export alone, whole process) kernel time fell from 2.18 to 1.62 s but user
/// time rose 1.11× and wall time 1.04×, and the mapped pages counted in the peak memory: 3.9 GB
/// against 45 MB.
///
/// ``write(_:)`` must be called once the readers are started: it is what stops them.
struct ExportSplitRead {
    /// Rowids per range (about 256 KB of encoded rows at the benchmark's events).
    static let defaultRangeRowids: Int64 = 1_024
    /// Ranges read but not yet written, at most: the export's memory bound.
    static let window = 8
    /// How long the export waits for the write lock (milliseconds) before it reads on one thread
    /// instead: a commit takes milliseconds, while a writer that holds the lock longer (an import's
    /// transaction, a report's refresh) should not hold the export up.
    static let lockWait: Int32 = 100

    /// What the readers and the formatter share.
    fileprivate final class Shared: @unchecked Sendable {
        // @unchecked Sendable: every field is read and written under `condition`.
        let condition = NSCondition()
        /// The next range no reader has taken.
        var nextRange: Int64 = 0
        /// Ranges read and not yet written, by number.
        var read: [Int64: [UInt8]] = [:]
        /// Written ranges' arrays, for readers to fill again (at most ``window`` + 2 exist).
        var spares: [[UInt8]] = []
        /// The first error a reader met.
        var failure: (any Error)?
        /// The formatter has stopped: readers stop too.
        var stopped = false
        /// Room in the window: taken by a reader before it takes a range, given back when the
        /// range is written (starts at 0 and is signalled up; see ``BoundedChannel``'s init).
        let room = DispatchSemaphore(value: 0)
        /// Signalled once by each reader thread when it ends.
        let ended = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()
    private let ranges: Int64

    /// Starts the two readers of an events export (`sql`, such as ``Exporter/eventsRangeSQL``, with
    /// `values` for ?1–?5 and the range for ?6–?7; its first `columns` columns are encoded, then,
    /// `withState`, the delivery state read from the rowid column after them), or returns `nil`
    /// when they cannot share one snapshot (the export then reads on one thread).
    init?(
        connection: Connection, sql: String, values: [SQLValue], columns: Int, withState: Bool, rangeRowids: Int64?
    ) {
        guard let rangeRowids, rangeRowids > 0, let pinned = Self.pin(connection, deadLetters: withState) else {
            return nil
        }
        let (readers, first, last, dead) = pinned
        let (span, overflow) = last.subtractingReportingOverflow(first)
        guard !overflow else {
            Self.end(readers)
            return nil
        }
        let ranges = span / rangeRowids + 1
        self.ranges = ranges
        let shared = shared
        for _ in 0..<Self.window { shared.room.signal() }
        for (index, reader) in readers.enumerated() {
            let thread = Thread {
                defer { shared.ended.signal() }
                #if os(Linux)
                    // On Linux the niceness is the calling thread's own (on Darwin, the process's).
                    let which = __priority_which_t(PRIO_PROCESS.rawValue)
                    _ = setpriority(which, 0, min(getpriority(which, 0) + 5, 19))
                #endif
                do {
                    try reader.withDatabase { db in
                        defer { _ = try? db.execute("COMMIT") }
                        let statement = try db.makeStatement(sql)
                        var delivery = withState ? try DeliveryStates(db, dead: dead) : nil
                        let chunk = ExportRowChunk.Builder(
                            textual: ExportRowChunk.textualColumns(of: statement, count: columns))
                        while let range = shared.take(below: ranges) {
                            let lower = first + range * rangeRowids
                            let upper = span - range * rangeRowids < rangeRowids ? last : lower + (rangeRowids - 1)
                            statement.bind(values + [.integer(lower), .integer(upper)])
                            try delivery?.restrict(to: lower, upper)
                            try statement.forEachRow { row in
                                chunk.append(row, state: try delivery?.state(for: row, rowidColumn: columns))
                                return true
                            }
                            var bytes = shared.spare()
                            chunk.take(into: &bytes)
                            shared.deliver(range, bytes)
                        }
                    }
                } catch {
                    shared.fail(error)
                }
            }
            thread.name = "Exporter.reader\(index)"
            thread.start()
        }
    }

    /// Opens the two reading connections and begins a read transaction on each while a third,
    /// writable connection holds the write lock (on a connection opened read-only, `BEGIN
    /// IMMEDIATE` succeeds without taking it, so the exporter's own is not used for this); returns them with the snapshot's first and last rowid and,
    /// when `deadLetters`, the rowids of its open dead letters (``DeliveryStates/deadRowids(_:)``), or `nil`.
    private static func pin(_ connection: Connection, deadLetters: Bool) -> ([Connection], Int64, Int64, [Int64])? {
        let path = connection.path
        // A store opened read-only gets nothing more: the reading connections would create the
        // `-wal` and `-shm` files beside a store that must be left as it is.
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"), !connection.isReadOnly else { return nil }
        guard let readers = try? (0..<2).map({ _ in try Connection(path: path, options: .readOnly) }),
            let locker = try? Connection(
                path: path,
                options: OpenOptions(
                    create: false, busyTimeoutMilliseconds: min(connection.busyTimeoutMilliseconds, Self.lockWait),
                    wal: false))
        else { return nil }
        do {
            let bounds = try locker.withDatabase { db in
                try db.execute("BEGIN IMMEDIATE")
                defer { _ = try? db.execute("ROLLBACK") }
                return try readers.map { reader in
                    try reader.withDatabase { rdb in
                        try rdb.execute("BEGIN DEFERRED")
                        // The first read takes the snapshot the transaction keeps.
                        return (
                            try rdb.int64("SELECT coalesce(min(rowid), 0) FROM events") ?? 0,
                            try rdb.int64("SELECT coalesce(max(rowid), 0) FROM events") ?? 0
                        )
                    }
                }
            }
            let (first, last) = (bounds[0].0, bounds[0].1)
            guard bounds.allSatisfy({ $0.0 == first && $0.1 == last }) else {
                end(readers)
                return nil
            }
            let dead = deadLetters ? try readers[0].withDatabase { try DeliveryStates.deadRowids($0) } : []
            return (readers, first, last, dead)
        } catch {
            end(readers)
            return nil
        }
    }

    /// Ends the read transactions of `readers` that were begun.
    private static func end(_ readers: [Connection]) {
        for reader in readers { reader.withDatabase { _ = try? $0.execute("ROLLBACK") } }
    }

    /// Hands the ranges' encoded rows to `format` in order, each as soon as it has been read;
    /// returns the rows `format` counted. Stops the readers and waits for them to end before it
    /// returns or throws.
    func write(_ format: ([UInt8]) throws -> Int64) throws -> Int64 {
        defer { shared.stop() }
        var rows: Int64 = 0
        try ReportError.wrap {
            for range in 0..<ranges {
                let bytes = try shared.wait(for: range)
                rows += try format(bytes)
                shared.recycle(bytes)
            }
        }
        return rows
    }
}

extension ExportSplitRead.Shared {
    /// Waits for room in the window, then takes the next range; `nil` when none is left or the
    /// formatter stopped.
    func take(below ranges: Int64) -> Int64? {
        room.wait()
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, failure == nil, nextRange < ranges else { return nil }
        nextRange += 1
        return nextRange - 1
    }

    /// An array a written range left, or a new one.
    func spare() -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return spares.popLast() ?? []
    }

    /// Keeps the array of a written range for the readers, and makes room for one more range.
    func recycle(_ bytes: [UInt8]) {
        condition.lock()
        spares.append(bytes)
        condition.unlock()
        room.signal()
    }

    /// Hands over the encoded rows of `range`.
    func deliver(_ range: Int64, _ bytes: [UInt8]) {
        condition.lock()
        read[range] = bytes
        condition.broadcast()
        condition.unlock()
    }

    /// Records a reader's error (the first one is kept).
    func fail(_ error: any Error) {
        condition.lock()
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    /// The rows of `range`, waiting until they are read; throws a reader's error instead when one
    /// failed before `range` was read.
    func wait(for range: Int64) throws -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let bytes = read.removeValue(forKey: range) { return bytes }
            if let failure { throw failure }
            condition.wait()
        }
    }

    /// Stops the readers (a reader waiting for room is let through and stops) and waits until
    /// both have ended, so nothing they use is in use any more.
    func stop() {
        condition.lock()
        stopped = true
        condition.unlock()
        for _ in 0..<2 {
            room.signal()
        }
        for _ in 0..<2 { ended.wait() }
    }
}
