import Foundation
import PaywallSQLite

/// Keeps the report rollups (`report_presentations`, `report_event_buckets`) up to date with the
/// events table, incrementally: events with a rowid above the watermark stored in `meta` are folded
/// in Swift (``PresentationBatch``) and merged in `pw_id` order with
/// `reports/rollup_merge_presentation.sql`, one transaction per chunk, so the recorder is never
/// blocked for long and a killed run loses nothing (the watermark, the rollups and the touched
/// buckets in `report_dirty_buckets` move in the same transaction).
struct Rollup {
    /// Meta key of the last events rowid folded into the rollups.
    static let watermarkKey = ReportSchema.watermarkKey
    /// Meta key of the newest event time among the stored events: each event's `occurred_at`, capped
    /// at its `recorded_at` (a device clock set ahead cannot make it later than its arrival).
    static let newestKey = ReportSchema.newestKey

    /// What one refresh did.
    struct Result: Sendable, Equatable {
        /// Events folded in.
        var eventsRead: Int64 = 0
        /// The watermark before the refresh.
        var watermarkBefore: Int64 = 0
        /// The watermark after the refresh.
        var watermarkAfter: Int64 = 0
        /// 15-minute buckets (`ms / 900000`) of the first events of every presentation that changed
        /// (before and after the change) and of every new event's `occurred_at`.
        var touchedBuckets: Set<Int64> = []
        /// With ``Rollup/collectAdditions``: the presentations this refresh stored for the first
        /// time, whole; `nil` when not collected (not asked, over the limit, or a first build).
        var additions: Additions?
    }

    /// What a refresh added, for a caller that updates per-day summaries without rescanning:
    /// presentations new to the rollup (their folds are their whole rows) and the buckets of the
    /// presentations it changed instead (their first event's bucket before and after).
    struct Additions: Equatable {
        /// The new presentations' folds, whole: a presentation whose events fall in two chunks of the
        /// same refresh is added by the first and its fold merged with the second's (it is new to the
        /// rollup either way, so its day can still take the additive path).
        var folds = FoldRuns()
        /// Where each chunk's folds start in ``folds`` (each chunk's are in `pw_id` order).
        var chunkStarts: [Int] = []
        /// The close texts of the folds.
        var texts = TextTable()
        /// First-event buckets (before and after) of the presentations that were already stored
        /// before the refresh.
        var changedBuckets: Set<Int64> = []

        /// The index in ``folds`` of the fold of `pwID` an earlier chunk added (those below `limit`, the
        /// current chunk's start), if any.
        func index(of pwID: UUIDKey, below limit: Int) -> Int? {
            for (number, start) in chunkStarts.enumerated() {
                let end = number + 1 < chunkStarts.count ? chunkStarts[number + 1] : limit
                var low = start
                var high = end
                while low < high {
                    let middle = (low + high) / 2
                    if folds[middle].pwID < pwID { low = middle + 1 } else { high = middle }
                }
                if low < end, folds[low].pwID == pwID { return low }
            }
            return nil
        }
    }

    let connection: Connection
    /// Events per chunk by default: one chunk is one write transaction, so the recorder waits for
    /// the write lock at most one chunk's merge (about 75 ms for 100k events, from the 0.25 s the
    /// benchmark's 333k-event day takes), and the reader holds at most one chunk ahead in memory.
    /// (No other size was measured; the figure bounds lock waits and memory, it is not a tuned optimum.)
    static let defaultChunkSize: Int64 = 100_000

    /// Events per chunk when a collector serves the store (``sharesTheStore``).
    static let sharedChunkSize: Int64 = 10_000
    /// How long the refresh leaves the write lock free between two chunks when a collector serves
    /// the store (``sharesTheStore``), in microseconds.
    ///
    /// Design note: a refresh is a run of write transactions, and the next chunk is usually ready
    /// (read and folded meanwhile) when one commits, so without a pause the next `BEGIN IMMEDIATE`
    /// follows the commit within microseconds, and a writer waiting for the lock (the collector's
    /// group commit) can miss every gap and wait for the whole refresh: with 100k-event chunks and
    /// no gap, the collector's p99 while a report folded a million events was 0.6-1 s. A waiting
    /// writer tries every millisecond (`BusyWait` in PaywallSQLite), so a 2 ms gap lets it in after
    /// each chunk, and one small chunk is the longest it waits. Neither is used without a collector:
    /// measured on a 1M-event store (nightly after one more day, 7 paired runs), 20k-event chunks
    /// with the gap cost 6 % more CPU than 100k-event chunks without it.
    static let sharedLockGapMicroseconds: UInt32 = 2_000

    /// Whether a collector serves the store: chunks of at most ``sharedChunk`` events with
    /// ``sharedLockGapMicroseconds`` between them, instead of ``chunkSize`` and no gap.
    var sharesTheStore = false
    /// Events per chunk while ``sharesTheStore`` (``sharedChunkSize``; tests make it smaller).
    var sharedChunk = Rollup.sharedChunkSize

    /// Events per transaction.
    var chunkSize: Int64 = Rollup.defaultChunkSize
    /// Called after every committed chunk with the share of new events folded so far (0…1).
    var progress: (@Sendable (Double) -> Void)?
    /// Collect ``Result/additions``, up to this many new presentations (`nil`: do not collect).
    var collectAdditions: Int?

    /// Folds every event above the watermark into the rollups.
    ///
    /// - Throws: ``StorageError`` (the rollups stay consistent with the watermark).
    func refresh() throws -> Result {
        var result = Result()
        let top = try connection.scalar("SELECT coalesce(max(rowid), 0) FROM events")?.int64 ?? 0
        result.watermarkBefore = try watermark()
        result.watermarkAfter = result.watermarkBefore
        // A first build touches every day anyway: skip the per-presentation "where was it before" probes.
        let fresh =
            try connection.scalar("SELECT count(*) FROM (SELECT 1 FROM report_presentations LIMIT 1)")?.int64 == 0
        // A chunk dirties many pages; with SQLite's default 2 MB cache they spill and are written
        // again and again. A first build gets 32 MB, which holds a chunk's pages for the length of the
        // refresh; a later refresh 8 MB: its chunks add rows at the end of the tables and indexes and
        // probe a few stored ones, and every page of cache is fresh memory the process faults in
        // (16 µs a page on the 2-core virtual machine). Measured on the nightly after one more day at
        // 10M events (eight alternated pairs of `paywall-bench report child nightly` on copies of one
        // store): 46.4k page faults against 53.6k, wall 0.80–1.02x pair by pair (median 0.94x), CPU
        // 0.80–1.02x (median 0.93x).
        let cacheSize = try connection.scalar("PRAGMA cache_size")?.int64 ?? -2000
        try connection.execute(fresh ? "PRAGMA cache_size = -32768" : "PRAGMA cache_size = -8192")
        defer { try? connection.execute("PRAGMA cache_size = \(cacheSize)") }
        // The merge statements of 64 rows keep a statement journal (a row could fail after others
        // were written): the images of the pages each statement changes that existed before it.
        // SQLite holds the first 64 KiB in memory, and once one statement needs more it goes on in a
        // temporary file for the rest of the transaction, a `pwrite` for each page number and each
        // page of every later statement: 117k writes and 178 MB in a full recompute at 1M events,
        // and 63k writes in a nightly run after one more day at 10M events (19k in each chunk of
        // 100k events; at 1M events the day's chunk stayed within memory). With temporary storage
        // in memory the journal stays in memory, emptied after each statement (at most one
        // statement's pages): the 10M nightly's refresh 0.40 -> 0.37 s (three alternated pairs).
        // Changing the setting drops the connection's temporary tables (the caller's connection may
        // hold some: then the default stays, as it does when SQLite refuses the change, inside a
        // transaction with temporary storage open; the results are the same either way).
        // (The setting is put back as one of its three constant statements: 0 default, 1 file, 2 memory.)
        let tempStores = ["PRAGMA temp_store = DEFAULT", "PRAGMA temp_store = FILE", "PRAGMA temp_store = MEMORY"]
        let tempStore = Int(try connection.scalar("PRAGMA temp_store")?.int64 ?? 0)
        let journalsInMemory =
            try connection.scalar("SELECT count(*) FROM temp.sqlite_schema")?.int64 == 0
            && (try? connection.execute("PRAGMA temp_store = MEMORY")) != nil
        defer {
            if journalsInMemory {
                try? connection.execute(tempStores[tempStores.indices.contains(tempStore) ? tempStore : 0])
            }
        }
        // A first build does not probe, so it cannot tell new presentations from changed ones.
        if collectAdditions != nil, !fresh {
            result.additions = Additions()  // (its folds keep the chunks' arrays, ``FoldRuns``: no copies)
        }
        let wal = try connection.scalar("PRAGMA journal_mode")?.string == "wal"
        let generation = try connection.withDatabase { try Self.erasureGeneration($0) }
        let apply = { (batch: PresentationBatch) throws in
            try connection.transaction(.immediate) { db in
                let after =
                    Int64(
                        try ReportSchema.metaValue(Self.watermarkKey, in: db) ?? "0") ?? 0
                guard after == batch.after else { throw Self.movedWatermark(connection.path) }
                // A `forget` since the refresh began may have erased events this chunk read: start over.
                guard try Self.erasureGeneration(db) == generation else { throw Self.erasedMeanwhile(connection.path) }
                try self.apply(batch, db, fresh: fresh, into: &result)
            }
            result.watermarkAfter = batch.through
            // More chunks to come: leave the write lock free for a moment (see `sharedLockGapMicroseconds`).
            if sharesTheStore && batch.through < top { usleep(Self.sharedLockGapMicroseconds) }
            if let progress, top > result.watermarkBefore {
                progress(Double(result.watermarkAfter - result.watermarkBefore) / Double(top - result.watermarkBefore))
            }
        }
        let chunkSize = sharesTheStore ? min(self.chunkSize, sharedChunk) : self.chunkSize
        if wal && top - result.watermarkBefore > chunkSize {
            // Several chunks: a second connection reads and folds chunk n + 1 while this one merges chunk n.
            try RollupReader(path: connection.path, from: result.watermarkBefore, through: top, chunkSize: chunkSize)
                .forEach(
                    loadKeys: {
                        var keys = ReportKeys()
                        try connection.withDatabase { try keys.load($0) }
                        return keys
                    }, apply)
        } else {
            var keys = ReportKeys()
            var texts = TextTable()
            var after = result.watermarkBefore
            while after < top {
                let through = min(top, after + chunkSize)
                let batch = try connection.withDatabase { db in
                    try keys.load(db)
                    return try PresentationBatch.read(db, after: after, through: through, keys: &keys, texts: &texts)
                }
                try apply(batch)
                after = through
            }
        }
        return result
    }

    /// Presentations per multi-row merge statement, and parameters per presentation.
    static let mergeRows = 64, mergeColumns = 19

    /// `rollup_merge_presentation.sql` with its `VALUES` row repeated ``mergeRows`` times as
    /// numbered parameters (`?1 … ?19`, `?20 … ?38`, …), otherwise the same statement.
    static let mergeMany: String = {
        let sql = ReportQueries.rollupMergePresentation
        guard let values = sql.range(of: "VALUES ("),
            let end = sql.range(of: ")\nON CONFLICT", range: values.upperBound..<sql.endIndex)
        else { preconditionFailure("rollup_merge_presentation.sql has no single VALUES row") }
        let rows = (0..<mergeRows).map { row in
            "(" + (1...mergeColumns).map { "?\(row * mergeColumns + $0)" }.joined(separator: ", ") + ")"
        }
        return String(sql[..<values.lowerBound]) + "VALUES " + rows.joined(separator: ",\n  ") + "\n"
            + String(sql[sql.index(after: end.lowerBound)...])
    }()

    /// How many erasures changed the rollups (``ReportSchema/erasureGenerationKey``; 0 before any).
    static func erasureGeneration(_ db: Database) throws -> Int64 {
        Int64(
            try ReportSchema.metaValue(ReportSchema.erasureGenerationKey, in: db) ?? "0") ?? 0
    }

    /// The error for an erasure (`forget`) that ran while this refresh was reading.
    static func erasedMeanwhile(_ path: String) -> StorageError {
        StorageError(
            code: 0,
            message: """
                customers were forgotten (`forget`) while the report rollups were being refreshed, so what this \
                refresh had read may hold their events; nothing of this chunk was written. Run the report again
                """, path: path, kind: .busy)
    }

    /// The error for a watermark moved by someone else mid-refresh (reports hold a lease, so only
    /// a program that ignores it can do this).
    static func movedWatermark(_ path: String) -> StorageError {
        StorageError(
            code: 0,
            message: """
                the report rollup's watermark moved during the refresh (another program folded events at the same \
                time); nothing of this chunk was written. Run the report again
                """, path: path, kind: .busy)
    }

    /// Merges a folded chunk, records the touched buckets in `report_dirty_buckets` and moves the
    /// watermark, inside the caller's transaction.
    ///
    /// Touched buckets: every new event's bucket, plus the old first event's bucket of every
    /// presentation that existed before. After the merge a presentation's first event is either its
    /// old one or one of the new events, so nothing else can have changed.
    private func apply(_ batch: PresentationBatch, _ db: Database, fresh: Bool, into result: inout Result) throws {
        try batch.newNames.insert(db)
        var touched = Set(batch.buckets.keys)
        let before = try db.cachedStatement("SELECT first_at FROM report_presentations WHERE pw_id = ?")
        if !fresh {
            // A pw_id above the largest stored one cannot be stored yet: no probe. With time-ordered
            // ids (the library's UUIDv7) that is every presentation of a new day.
            let largest =
                try db.all("SELECT pw_id FROM report_presentations ORDER BY pw_id DESC LIMIT 1") {
                    UUIDKey(blob: $0, 0)
                }.first ?? nil
            // Folds sorted by pw_id: those above the largest stored one are a suffix, all new.
            let firstNew =
                largest.map { largest in batch.folds.firstIndex { largest < $0.pwID } ?? batch.folds.endIndex }
                ?? batch.folds.startIndex
            let chunkStart = result.additions?.folds.count ?? 0
            for fold in batch.folds[..<firstNew] {
                var storedFirstAt: Int64?
                before.reset()
                fold.pwID.bind(before, at: 1)
                if try before.step() { storedFirstAt = before.row.int64(at: 0) }
                before.reset()
                if let storedFirstAt {
                    touched.insert(storedFirstAt / 900_000)
                    if let index = result.additions?.index(of: fold.pwID, below: chunkStart) {
                        result.additions?.folds[index].merge(fold)  // added by an earlier chunk of this refresh
                    } else {
                        result.additions?.changedBuckets.formUnion([storedFirstAt / 900_000, fold.firstAt / 900_000])
                    }
                } else {
                    result.additions?.folds.append(fold)
                }
            }
            result.additions?.folds.append(batch.folds, from: firstNew)
            result.additions?.chunkStarts.append(chunkStart)
            if let limit = collectAdditions, let count = result.additions?.folds.count, count > limit {
                result.additions = nil
            }
            result.additions?.texts = batch.texts
        }
        // Rows go in groups of mergeRows per statement (less per-statement work in SQLite), the rest one by one.
        // Tried and dropped: a plain `INSERT` (no `ON CONFLICT` clause) for the groups of folds above the largest
        // stored pw_id, which cannot conflict (every presentation of a new day with time-ordered ids). The nightly
        // after one more day at 10M events, six alternated pairs on copies of one store: CPU 1.04x (median), the
        // refresh's CPU 1.04x: SQLite's cost is writing each row into the table and its two indexes, which both
        // statements pay (docs/benchmarks.md: what a rollup row costs).
        // Texts and ids are bound without copies (`PresentationFold.bind`): the texts where
        // `batch.texts` keeps them, the ids in `ids`, a statement's worth of rows at a time.
        let many = try db.cachedStatement(Self.mergeMany)
        let merge = try db.cachedStatement(ReportQueries.rollupMergePresentation)
        let ids = UnsafeMutableRawPointer.allocate(
            byteCount: Self.mergeRows * PresentationFold.boundIDBytes, alignment: 8)
        defer {
            // No statement keeps a pointer into memory that is about to go.
            many.clearBindings()
            merge.clearBindings()
            ids.deallocate()
        }
        try batch.texts.withUTF8Texts { texts in
            var start = 0
            while start + Self.mergeRows <= batch.folds.count {
                many.reset()
                for row in 0..<Self.mergeRows {
                    batch.folds[start + row].bind(
                        many, texts: texts, ids: ids + row * PresentationFold.boundIDBytes,
                        offset: row * Self.mergeColumns)
                }
                try many.run()
                start += Self.mergeRows
            }
            for fold in batch.folds[start...] {
                merge.reset()
                fold.bind(merge, texts: texts, ids: ids)
                try merge.run()
            }
        }
        let bucketMerge = try db.cachedStatement(
            """
            INSERT INTO report_event_buckets (bucket, events, impressions) VALUES (?, ?, ?)
            ON CONFLICT (bucket) DO UPDATE SET events = events + excluded.events, impressions = impressions + excluded.impressions
            """)
        for (bucket, counts) in batch.buckets {
            bucketMerge.bind([.integer(bucket), .integer(counts.events), .integer(counts.impressions)])
            try bucketMerge.run()
        }
        let dirty = try db.cachedStatement("INSERT OR IGNORE INTO report_dirty_buckets (bucket) VALUES (?)")
        for bucket in touched {
            dirty.bind([.integer(bucket)])
            try dirty.run()
        }
        result.touchedBuckets.formUnion(touched)
        if batch.newest != .min {
            try db.run(
                """
                INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS TEXT))
                ON CONFLICT (key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), ?2) AS TEXT)
                """, [.text(Self.newestKey), .integer(batch.newest)])
        }
        try ReportSchema.setMeta(Self.watermarkKey, to: String(batch.through), in: db)
        result.eventsRead += batch.count
    }

    /// The current watermark (0 before the first refresh).
    func watermark() throws -> Int64 {
        Int64(try connection.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.watermarkKey)])?.string ?? "0")
            ?? 0
    }
}
