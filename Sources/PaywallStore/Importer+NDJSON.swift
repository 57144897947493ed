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
        // Each batch is written as it comes: a few batches of room keep both threads busy.
        let reader = pipeline.start(descriptor: descriptor, path: path, capacity: 4, alreadyRead: alreadyRead)
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
            try streamTransactions(
                reader, origin: origin, transactionEvents: plan.transactionEvents, result: &result, progress: report)
        }
        progress(ImportProgress(origin: path, done: total ?? done, total: total, result: result))
        return result
    }
}

extension Importer {
    /// The import's transactions: each validated batch is written as it arrives, inside a
    /// transaction that commits once it holds `transactionEvents` events and bad lines. The writer
    /// thread never waits for a whole transaction to arrive, and copies no event.
    /// A read error commits what was read before it, then is thrown.
    func streamTransactions(
        _ reader: BackgroundReader<NDJSONPipeline.Item>, origin: String, transactionEvents: Int,
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
        var firstTransaction = options.firstImportEventsBeforeIndex > 0
        while let first = waiting {
            waiting = nil
            var written: [(outcome: InsertOutcome, quarantined: Int, already: Int)] = []
            var bytesRead = first.bytesRead
            var full = false
            let time = store.now.milliseconds()
            try store.connection.transaction { db in
                // Into a store holding no event, with ids not in order, the first transaction writes
                // without the id index and builds it before committing (FirstImportIDs).
                var limit = transactionEvents
                var idsWithoutIndex: FirstImportIDs?
                if firstTransaction {
                    firstTransaction = false
                    idsWithoutIndex = try FirstImportIDs.leaveIndexOut(
                        db, expecting: options.firstImportEventsBeforeIndex, sample: first.batch.events)
                    if idsWithoutIndex != nil { limit = options.firstImportEventsBeforeIndex }
                }
                func writeBatches() throws {
                    var count = 0
                    var current: NDJSONPipeline.Item? = first
                    while let item = current {
                        let batch = item.batch
                        let (outcome, already) = try write(
                            db, batch.events, quarantine: batch.quarantine,
                            provenance: EventProvenance(origin: origin, lines: batch.lines), recordedAt: time,
                            idsWithoutIndex: idsWithoutIndex)
                        written.append((outcome, batch.quarantine.count, already))
                        count += batch.events.count + batch.quarantine.count
                        bytesRead = item.bytesRead
                        full = count >= limit
                        current = full ? nil : next()
                    }
                }
                // Without the id index the rows only append at the table's end: the least cache will
                // do, and the memory goes to the ids held instead. Measured (the import child, 1M
                // random ids, three alternated pairs each): with the import's cache (57 MiB) 3.34 s
                // and 210 MB peak, with this one 3.11–3.18 s and 123 MB; sorting the index with the
                // import's cache after the rows, 3.25–3.44 s and 155 MB. At 10M the peak stays where
                // it was (279 against 283 MB; 366 MB with the import's cache).
                if let idsWithoutIndex {
                    try ImportCache.with(db, bytes: ImportCache.minimumBytes) {
                        try writeBatches()
                        try idsWithoutIndex.buildIndex(db)
                    }
                } else {
                    try writeBatches()
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

    /// How an import of `inputBytes` (`nil`: unknown) writes: its page cache
    /// (``ImportOptions/cacheBytes``, or sized from the store) and its transactions' size:
    /// ``ImportOptions/transactionEvents``, or, once the id index (estimated from the store and the
    /// input) is larger than the cache, ``ImportOptions/largeStoreTransactionEvents``.
    func bulkPlan(inputBytes: Int64?) -> (cacheBytes: Int, transactionEvents: Int) {
        let storeBytes = ImportCache.fileBytes(store.path) ?? 0
        let cache = options.cacheBytes ?? ImportCache.bytes(storeBytes: storeBytes, inputBytes: inputBytes)
        let index = ImportCache.indexBytes(storeBytes: storeBytes, inputBytes: inputBytes)
        let effectiveCache = cache > 0 ? cache : 2 << 20
        let indexOutgrowsCache = index > Int64(effectiveCache)
        // Random ids into an index larger than the cache dirty about one index leaf per event, up
        // to every leaf: a transaction much larger than the index's leaves writes each leaf once
        // instead of once per event (IMPORT-FAST-PATH.md). The import streams its batches, so a
        // larger transaction costs no memory.
        let transaction =
            indexOutgrowsCache
            ? max(options.transactionEvents, options.largeStoreTransactionEvents) : options.transactionEvents
        return (cache, transaction)
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

    mutating func add(_ event: EventRecord, line: Int) {
        events.append(event)
        lines.append(line)
    }

    mutating func add(_ entry: QuarantineEntry) { quarantine.append(entry) }
}
