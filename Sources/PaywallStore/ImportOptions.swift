/// How an import runs.
public struct ImportOptions: Sendable, Hashable {
    /// Imported impressions enter the outbox as pending (`true`, the default), or — when they
    /// were forwarded to RevenueCat already (`--no-forward`) — `deliveries`, delivered at import time.
    /// From another store's file this applies to the impressions pending there: those it delivered,
    /// its app installs forwarded or RevenueCat refused keep that state (``Importer/importDatabase(path:progress:)``).
    public var forward: Bool
    /// Lines longer than this many bytes are quarantined without being buffered whole.
    public var maxLineBytes: Int
    /// Lines validated together (NDJSON; at most 4 MB of lines), or rows read and written per
    /// transaction (another store's database).
    public var batchSize: Int
    /// NDJSON events (and bad lines) written per transaction, at least ``batchSize``: validated
    /// batches are written into the open transaction until it holds this many.
    public var transactionEvents: Int
    /// Bytes read from the file at a time.
    public var chunkBytes: Int
    /// SQLite's page cache during the import, in bytes; `nil` sizes it from the store and the input
    /// (``ImportCache``), `0` leaves the connection's own.
    public var cacheBytes: Int?
    /// NDJSON events (and bad lines) per transaction on the plain path once the id index (estimated
    /// from the store and the input) is larger than the page cache, when more than
    /// ``transactionEvents`` (1,000,000 by default; the plain path streams, so memory stays flat).
    public var largeStoreTransactionEvents: Int
    /// Checkpoint the WAL on a thread of its own during an NDJSON import (``BackgroundCheckpointer``,
    /// the default), instead of inside the commits that cross SQLite's threshold.
    public var backgroundCheckpoints: Bool
    /// An NDJSON import into a store holding no event writes up to this many events and bad lines
    /// (1,000,000 by default) in its first transaction without the unique index on `events.id`,
    /// finding the input's repeated ids in memory, then builds the index before that transaction
    /// commits (IMPORT-FAST-PATH.md); `0` keeps the index throughout.
    public var firstImportEventsBeforeIndex: Int

    /// Creates options: forward, 1 MiB line limit, batches of 10,000 lines, 100,000 NDJSON events per
    /// transaction (1,000,000 once the id index outgrows the cache), 1 MiB reads, a page cache sized
    /// from the store, background checkpoints, and a first import's first 1,000,000 events written
    /// before the id index is built.
    public init(
        forward: Bool = true, maxLineBytes: Int = 1 << 20, batchSize: Int = 10_000, chunkBytes: Int = 1 << 20,
        cacheBytes: Int? = nil, transactionEvents: Int = 100_000,
        largeStoreTransactionEvents: Int = 1_000_000, backgroundCheckpoints: Bool = true,
        firstImportEventsBeforeIndex: Int = 1_000_000
    ) {
        self.backgroundCheckpoints = backgroundCheckpoints
        self.firstImportEventsBeforeIndex = max(0, firstImportEventsBeforeIndex)
        self.largeStoreTransactionEvents = max(1, largeStoreTransactionEvents)
        self.forward = forward
        self.maxLineBytes = max(1, maxLineBytes)
        self.batchSize = max(1, batchSize)
        self.transactionEvents = max(self.batchSize, transactionEvents)
        self.chunkBytes = max(1, chunkBytes)
        self.cacheBytes = cacheBytes.map { max(0, $0) }
    }
}

/// What an import did.
public struct ImportResult: Sendable, Hashable {
    /// Events stored for the first time.
    public var imported: Int
    /// Valid events identical to one already stored (or earlier in the input): same id, same
    /// content (every field but `recorded_at`, ids compared as UUIDs).
    public var duplicates: Int
    /// Lines or rows refused (each is in the quarantine with its reasons).
    public var quarantined: Int
    /// Of ``quarantined`` and ``conflicts``, those whose payload was already in the quarantine
    /// (a re-import): not stored again.
    public var alreadyQuarantined: Int
    /// Valid events whose id was already stored (or earlier in the input) with other content: the
    /// stored event is kept, this version goes to the quarantine with the fields that differ.
    /// Every non-blank line is counted once: imported, duplicate, conflict or quarantined.
    public var conflicts: Int
    /// Events and refused lines of forgotten customers (``Suppression``): not stored (not even in the
    /// quarantine), counted in `suppressed_events`.
    public var suppressed = 0

    /// Creates a result.
    public init(
        imported: Int = 0, duplicates: Int = 0, quarantined: Int = 0, alreadyQuarantined: Int = 0,
        conflicts: Int = 0
    ) {
        self.imported = imported
        self.duplicates = duplicates
        self.quarantined = quarantined
        self.alreadyQuarantined = alreadyQuarantined
        self.conflicts = conflicts
    }

    /// Adds another result (for several files).
    public static func + (lhs: ImportResult, rhs: ImportResult) -> ImportResult {
        var sum = ImportResult(
            imported: lhs.imported + rhs.imported, duplicates: lhs.duplicates + rhs.duplicates,
            quarantined: lhs.quarantined + rhs.quarantined,
            alreadyQuarantined: lhs.alreadyQuarantined + rhs.alreadyQuarantined,
            conflicts: lhs.conflicts + rhs.conflicts)
        sum.suppressed = lhs.suppressed + rhs.suppressed
        return sum
    }

    /// Whether any line was refused: quarantined, or in conflict with a stored event.
    public var refusedAny: Bool { quarantined > 0 || conflicts > 0 }
}

/// How far an import is, reported after every committed batch (the CLI draws the bar).
public struct ImportProgress: Sendable, Hashable {
    /// The file or database being imported (`-` for standard input).
    public var origin: String
    /// Bytes read (NDJSON) or rows read (SQLite) so far.
    public var done: Int64
    /// Total bytes or rows, when known (not for standard input).
    public var total: Int64?
    /// Counts so far for this input.
    public var result: ImportResult

    /// `done / total`, when the total is known.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(done) / Double(total))
    }
}
