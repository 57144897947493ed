import Foundation
import PaywallCore
import PaywallSQLite

extension Importer {
    /// Imports one NDJSON file (`-` for standard input), streaming it in chunks: blank lines are
    /// skipped, a trailing `\r` is ignored, a line longer than ``ImportOptions/maxLineBytes`` is
    /// quarantined with its length and first bytes. Lines are read and validated on background
    /// threads while this thread writes batches, one transaction each, in input order.
    ///
    /// - Throws: ``ImportError`` (missing, unreadable) or `StorageError`. A read that fails midway
    ///   still stores every complete line read before it (an unfinished last line is left out).
    public func importNDJSON(path: String, progress: (ImportProgress) -> Void = { _ in }) throws -> ImportResult {
        let descriptor = path == "-" ? STDIN_FILENO : try Self.openForReading(path)
        return try importNDJSON(descriptor: descriptor, alreadyRead: [], path: path, progress: progress)
    }

    /// Imports NDJSON from an open descriptor (closed here unless it is standard input), the bytes
    /// `alreadyRead` from it first.
    func importNDJSON(
        descriptor: Int32, alreadyRead: [UInt8], path: String,
        progress: (ImportProgress) -> Void
    ) throws -> ImportResult {
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        let total: Int64? =
            fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        let origin = path == "-" ? "stdin" : path
        let plan = bulkPlan(inputBytes: total)
        let pipeline = NDJSONPipeline(validator: validator, options: options, now: store.now, origin: origin)
        // The plain path writes each batch as it comes: a few batches of room keep both threads busy.
        // The other paths gather a transaction's batches first: room for all of them and one more.
        let capacity = plan.path == .plain ? 4 : NDJSONPipeline.channelCapacity(options)
        let reader = pipeline.start(descriptor: descriptor, path: path, capacity: capacity, alreadyRead: alreadyRead)
        defer {
            // Wait until the reader no longer touches the descriptor before it is closed. Standard
            // input is never closed here, so a reader blocked on a terminal is not waited for.
            reader.stop(waiting: descriptor != STDIN_FILENO)
        }
        var result = ImportResult()
        var done: Int64 = 0
        // Checkpoints on a thread of their own: inline, they were a third of the import's wall time
        // (BackgroundCheckpointer; IMPORT-FAST-PATH.md).
        let checkpointer =
            options.backgroundCheckpoints ? try BackgroundCheckpointer(connection: store.connection) : nil
        defer { checkpointer?.stop() }
        func report(_ bytesRead: Int64, _ soFar: ImportResult) {
            done = bytesRead
            progress(ImportProgress(origin: path, done: bytesRead, total: total, result: soFar))
        }
        try ImportCache.with(store.connection, bytes: plan.cacheBytes) {
            if plan.path == .plain {
                try streamTransactions(
                    reader, origin: origin, path: plan.path, transactionEvents: plan.transactionEvents, result: &result,
                    progress: report)
            } else {
                try gatherTransactions(reader, origin: origin, path: plan.path, result: &result, progress: report)
            }
        }
        progress(ImportProgress(origin: path, done: total ?? done, total: total, result: result))
        return result
    }
}

extension Importer {
    /// The plain path's transactions: each validated batch is written as it arrives, inside a
    /// transaction that commits once it holds `transactionEvents` events and bad lines.
    /// Transaction boundaries, rowids, outcomes and the quarantine's order are those that gathering
    /// the batches first (``gatherTransactions(_:origin:path:result:progress:)``) would give; the
    /// writer thread just never waits for a whole transaction to arrive, and copies no event.
    /// A read error commits what was read before it, then is thrown.
    func streamTransactions(
        _ reader: BackgroundReader<NDJSONPipeline.Item>, origin: String, path: WritePath, transactionEvents: Int,
        result: inout ImportResult,
        progress: (_ bytesRead: Int64, _ result: ImportResult) -> Void
    ) throws {
        var readError: (any Error)?
        func next() -> NDJSONPipeline.Item? {
            do {
                return try reader.next()
            } catch {
                readError = error
                return nil
            }
        }
        var waiting = next()
        while let first = waiting {
            waiting = nil
            var written: [(outcome: InsertOutcome, quarantined: Int, already: Int)] = []
            var bytesRead = first.bytesRead
            var full = false
            let time = store.now.milliseconds()
            try store.connection.transaction { db in
                var count = 0
                var current: NDJSONPipeline.Item? = first
                while let item = current {
                    let batch = item.batch
                    let (outcome, already) = try write(
                        db, batch.events, quarantine: batch.quarantine,
                        provenance: EventProvenance(origin: origin, lines: batch.lines), path: path, recordedAt: time)
                    written.append((outcome, batch.quarantine.count, already))
                    count += batch.events.count + batch.quarantine.count
                    bytesRead = item.bytesRead
                    full = count >= transactionEvents
                    current = full ? nil : next()
                }
            }
            for part in written {
                result.add(part.outcome, quarantined: part.quarantined, alreadyQuarantined: part.already)
            }
            progress(bytesRead, result)
            if full { waiting = next() }  // otherwise the input ended (or failed) inside the transaction
        }
        if let readError { throw readError }
    }

    /// The other write paths' transactions: validated batches are gathered until
    /// ``ImportOptions/transactionEvents`` events and bad lines, then written in one transaction (the
    /// sorted paths sort a whole transaction). A read error commits what was read before it, then
    /// is thrown.
    func gatherTransactions(
        _ reader: BackgroundReader<NDJSONPipeline.Item>, origin: String, path: WritePath, result: inout ImportResult,
        progress: (_ bytesRead: Int64, _ result: ImportResult) -> Void
    ) throws {
        // Validated batches are gathered into transactions of `transactionEvents` events: a random
        // id dirties about one index page per event up to the number of index pages, so fewer,
        // larger transactions write each page fewer times (IMPORT-FAST-PATH.md).
        var pending = Batch(capacity: 0)
        var done: Int64 = 0
        func commitPending() throws {
            guard !pending.isEmpty else { return }
            let (outcome, already) = try commit(
                pending.events, quarantine: pending.quarantine,
                provenance: EventProvenance(origin: origin, lines: pending.lines),
                path: path)
            result.add(outcome, quarantined: pending.quarantine.count, alreadyQuarantined: already)
            pending = Batch(capacity: 0)
            progress(done, result)
        }
        while true {
            let item: NDJSONPipeline.Item?
            do {
                item = try reader.next()
            } catch {
                try commitPending()  // what was read before the failure stays imported
                throw error
            }
            guard let item else { break }
            if pending.isEmpty {
                pending = item.batch
            } else {
                pending.append(item.batch)
            }
            done = item.bytesRead
            if pending.events.count + pending.quarantine.count >= options.transactionEvents { try commitPending() }
        }
        try commitPending()
    }

    /// How an import of `inputBytes` (`nil`: unknown) writes: its page cache
    /// (``ImportOptions/cacheBytes``, or sized from the store), its write path
    /// (``ImportOptions/writePath``; ``WritePath/automatic`` becomes ``WritePath/plain`` while the
    /// id index, estimated from the store and the input, fits in that cache, else ``WritePath/sorted``)
    /// and its transactions' size: ``ImportOptions/transactionEvents``, or on the plain path, once the
    /// index estimate is larger than the cache, ``ImportOptions/largeStoreTransactionEvents``.
    func bulkPlan(inputBytes: Int64?) -> (cacheBytes: Int, path: WritePath, transactionEvents: Int) {
        let storeBytes = ImportCache.fileBytes(store.path) ?? 0
        let cache = options.cacheBytes ?? ImportCache.bytes(storeBytes: storeBytes, inputBytes: inputBytes)
        let index = ImportCache.indexBytes(storeBytes: storeBytes, inputBytes: inputBytes)
        let effectiveCache = cache > 0 ? cache : 2 << 20
        let indexOutgrowsCache = index > Int64(effectiveCache)
        let path = options.writePath == .automatic ? (indexOutgrowsCache ? .sorted : .plain) : options.writePath
        // Random ids into an index larger than the cache dirty about one index leaf per event, up
        // to every leaf: a transaction much larger than the index's leaves writes each leaf once
        // instead of once per event (IMPORT-FAST-PATH.md). The plain path streams its batches, so a
        // larger transaction costs no memory.
        let transaction =
            path == .plain && indexOutgrowsCache
            ? max(options.transactionEvents, options.largeStoreTransactionEvents) : options.transactionEvents
        return (cache, path, transaction)
    }
}

/// Events and quarantine entries awaiting one transaction.
struct Batch: Sendable {
    var events: [EventRecord] = []
    /// Each event's line (or row) number, in the order of ``events``.
    var lines: [Int] = []
    var quarantine: [QuarantineEntry] = []

    init(capacity: Int) {
        events.reserveCapacity(capacity)
        lines.reserveCapacity(capacity)
    }

    /// Appends another batch's events and entries, in order.
    mutating func append(_ other: Batch) {
        events += other.events
        lines += other.lines
        quarantine += other.quarantine
    }

    mutating func add(_ event: EventRecord, line: Int) {
        events.append(event)
        lines.append(line)
    }

    var isEmpty: Bool { events.isEmpty && quarantine.isEmpty }

    mutating func add(_ entry: QuarantineEntry) { quarantine.append(entry) }
}
