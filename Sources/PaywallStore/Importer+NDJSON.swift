import Foundation
import PaywallCore
import PaywallSQLite

extension Importer {
    /// Imports one NDJSON file (`-` for standard input), streaming it in chunks: blank lines are
    /// skipped, a trailing `\r` is ignored, a line longer than ``ImportOptions/maxLineBytes`` is
    /// quarantined with its length and first bytes. Lines are read and validated on background
    /// threads while this thread writes batches, one transaction each, in input order.
    ///
    /// - Throws: ``ImportError`` (missing, unreadable) or `StorageError`; batches committed before
    ///   the error stay committed.
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
        let pipeline = NDJSONPipeline(validator: validator, options: options, now: store.now, origin: origin)
        let reader = pipeline.start(descriptor: descriptor, path: path, alreadyRead: alreadyRead)
        defer {
            // Wait until the reader no longer touches the descriptor before it is closed. Standard
            // input is never closed here, so a reader blocked on a terminal is not waited for.
            reader.stop(waiting: descriptor != STDIN_FILENO)
        }
        var result = ImportResult()
        var done: Int64 = 0
        // Validated batches are gathered into transactions of `transactionEvents` events: a random
        // id dirties about one index page per event up to the number of index pages, so fewer,
        // larger transactions write each page fewer times (IMPORT-FAST-PATH.md).
        var pending = Batch(capacity: 0)
        let plan = bulkPlan(inputBytes: total)
        func commitPending() throws {
            guard !pending.isEmpty else { return }
            let (outcome, already) = try commit(
                pending.events, quarantine: pending.quarantine,
                provenance: EventProvenance(origin: origin, lines: pending.lines),
                path: plan.path)
            result.add(outcome, quarantined: pending.quarantine.count, alreadyQuarantined: already)
            pending = Batch(capacity: 0)
            progress(ImportProgress(origin: path, done: done, total: total, result: result))
        }
        try ImportCache.with(store.connection, bytes: plan.cacheBytes) {
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
        progress(ImportProgress(origin: path, done: total ?? done, total: total, result: result))
        return result
    }
}

extension Importer {
    /// How an import of `inputBytes` (`nil`: unknown) writes: its page cache
    /// (``ImportOptions/cacheBytes``, or sized from the store) and its write path
    /// (``ImportOptions/writePath``; ``WritePath/automatic`` becomes ``WritePath/plain`` while the
    /// id index, estimated from the store and the input, fits in that cache, else ``WritePath/sorted``).
    func bulkPlan(inputBytes: Int64?) -> (cacheBytes: Int, path: WritePath) {
        let storeBytes = ImportCache.fileBytes(store.path) ?? 0
        let cache = options.cacheBytes ?? ImportCache.bytes(storeBytes: storeBytes, inputBytes: inputBytes)
        guard options.writePath == .automatic else { return (cache, options.writePath) }
        let index = ImportCache.indexBytes(storeBytes: storeBytes, inputBytes: inputBytes)
        let effectiveCache = cache > 0 ? cache : 2 << 20
        return (cache, index > Int64(effectiveCache) ? .sorted : .plain)
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
