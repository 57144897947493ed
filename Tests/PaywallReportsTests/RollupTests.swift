import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The Swift fold (Rollup) builds the rollup that the set-based SQL definition
/// (reports/rollup_presentations.sql) describes, whatever the chunking and the arrival order.
struct RollupTests {
    /// The stored rollup read back as the reference query's columns: ids as hex, names through the keys.
    static let stored = """
        SELECT hex(p.pw_id), p.first_at, hex(p.first_id), l.placement, c.user_id, p.impression_at, p.plan_selected,
               p.purchase_started, p.close_at, nullif(hex(p.close_id), ''), p.close_result, p.close_via, p.close_open_s,
               p.close_product, nullif(hex(p.impression_id), ''), p.offering, p.platform, p.app_version, p.last_at
        FROM report_presentations AS p
        JOIN report_placements AS l ON l.key = p.placement_key
        JOIN report_customers AS c ON c.key = p.customer_key
        ORDER BY p.pw_id
        """

    /// reports/rollup_presentations.sql over the same events, ids without dashes.
    static var reference: String {
        let query = ReportQueries.rollupPresentations.trimmingCharacters(in: .whitespacesAndNewlines).dropLast()
        return """
            SELECT replace(pw_id, '-', ''), first_at, replace(first_id, '-', ''), placement, user_id, impression_at,
                   plan_selected, purchase_started, close_at, replace(close_id, '-', ''), close_result, close_via,
                   close_open_s, close_product, replace(impression_id, '-', ''), offering, platform, app_version, last_at
            FROM (\(query)) ORDER BY pw_id
            """
    }

    static func rows(_ sql: String, _ connection: Connection) throws -> [[SQLValue]] {
        try connection.all(sql) { row in (0..<19).map { row.value(at: $0) } }
    }

    /// Each stored presentation's first event time, by hex pw_id.
    static func firsts(_ connection: Connection) throws -> [String: Int64] {
        Dictionary(
            uniqueKeysWithValues: try connection.all("SELECT hex(pw_id), first_at FROM report_presentations") {
                ($0.string(at: 0) ?? "", $0.int64(at: 1))
            })
    }

    static func buckets(_ sql: String, _ connection: Connection) throws -> Set<Int64> {
        Set(try connection.all(sql) { $0.int64(at: 0) })
    }

    @Test(arguments: [1, 7, 1_000])
    func theSwiftFoldEqualsTheSQLDefinition(_ chunk: Int) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given random events stored in shuffled order (later rowids hold earlier events)
        let connection = try EngineAgreementTests.randomStore(at: folder.path("a"), seed: 11)
        // When Rollup folds them in chunks
        var rollup = Rollup(connection: connection)
        rollup.chunkSize = Int64(chunk)
        let result = try rollup.refresh()
        // Then the stored rows, read back through the keys, equal the SQL definition over all events
        let expected = try Self.rows(Self.reference, connection)
        #expect(expected.count > 500)
        #expect(try Self.rows(Self.stored, connection) == expected)
        // and every event's bucket was recorded as touched, in the result and in report_dirty_buckets
        let eventBuckets = try Self.buckets("SELECT DISTINCT occurred_at / 900000 FROM events", connection)
        #expect(result.touchedBuckets == eventBuckets)
        #expect(try Self.buckets("SELECT bucket FROM report_dirty_buckets", connection) == eventBuckets)
    }

    @Test func besideACollectorTheRefreshCommitsSmallChunksWithTheSameRollup() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given random events, and a refresh told that a collector writes to the store meanwhile
        let connection = try EngineAgreementTests.randomStore(at: folder.path("a"), seed: 12)
        let events = try connection.scalar("SELECT max(rowid) FROM events")?.int64 ?? 0
        var rollup = Rollup(connection: connection)
        rollup.sharesTheStore = true
        rollup.sharedChunk = 200
        let commits = Lock(0)
        rollup.progress = { _ in commits.withLock { $0 += 1 } }
        // When it folds them
        _ = try rollup.refresh()
        // Then it committed one transaction per small chunk, not one for all (the default chunk)
        #expect(events > 1_000)
        #expect(commits.withLock { $0 } == Int((events + 199) / 200))
        // and the rollup equals the SQL definition
        #expect(try Self.rows(Self.stored, connection) == (try Self.rows(Self.reference, connection)))
    }

    @Test func lateEventsInAnyOrderGiveTheSameRollupAsOnePass() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given the random events split into three shuffled batches, folded after each arrives
        let all = try EngineAgreementTests.randomStore(at: folder.path("all"), seed: 23)
        let events = try all.all("SELECT rowid FROM events ORDER BY rowid") { $0.int64(at: 0) }
        var random = SeededGenerator(seed: 5)
        let order = events.shuffled(using: &random)
        let batched = try ReportSchema.open(path: folder.path("batched"))
        try batched.execute("ATTACH DATABASE '\(folder.path("all"))' AS source")
        var moved = 0
        for start in stride(from: 0, to: order.count, by: order.count / 3 + 1) {
            let batch = order[start..<min(order.count, start + order.count / 3 + 1)]
            try batched.execute("DELETE FROM report_dirty_buckets")  // as the nightly job does
            let ids = batch.map(String.init).joined(separator: ",")
            // Copied without `seq`, so each batch gets new, higher rowids: late arrivals, as in a real store.
            let columns =
                "id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id, source, "
                + "offering_id, placement_id, product, result, via, open_s, platform, app_version"
            try batched.execute(
                "INSERT INTO events (\(columns)) SELECT \(columns) FROM source.events WHERE rowid IN (\(ids))")
            let pwIDs = Set(
                try batched.all("SELECT DISTINCT replace(pw_id, '-', '') FROM source.events WHERE rowid IN (\(ids))") {
                    $0.string(at: 0) ?? ""
                })
            let firsts = try Self.firsts(batched)
            let before = Set(firsts.filter { pwIDs.contains($0.key) }.map { $0.value / 900_000 })
            var rollup = Rollup(connection: batched)
            rollup.chunkSize = 97
            let result = try rollup.refresh()
            // Then each refresh touches the batch's event buckets and the old first-event buckets of the
            // presentations it changed, and records exactly those in report_dirty_buckets
            let eventBuckets = try Self.buckets(
                "SELECT DISTINCT occurred_at / 900000 FROM source.events WHERE rowid IN (\(ids))", batched)
            #expect(result.touchedBuckets == eventBuckets.union(before))
            #expect(try Self.buckets("SELECT bucket FROM report_dirty_buckets", batched) == result.touchedBuckets)
            moved += try Self.firsts(batched).filter { pw, at in firsts[pw].map { $0 > at } ?? false }.count
        }
        #expect(moved > 10)  // late events did move first events to earlier times
        // And the final rollup equals one pass over every event
        #expect(try Self.rows(Self.stored, batched) == Self.rows(Self.reference, all))
    }

    @Test func aSecondRefreshWithoutNewEventsReadsNothing() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let first = try Rollup(connection: connection).refresh()
        let second = try Rollup(connection: connection).refresh()
        #expect(first.eventsRead == Int64(ReportFixture.events.count))
        #expect(second.eventsRead == 0 && second.touchedBuckets.isEmpty)
        #expect(second.watermarkAfter == first.watermarkAfter)
    }

    @Test func aFirstBuildLeavesTheConnectionsTemporaryStorageAsItWas() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given two stores, one connection with a temporary table and a temporary storage setting of its own
        let plain = try ReportFixture.makeStore(at: folder.path("a"))
        let holding = try ReportFixture.makeStore(at: folder.path("b"))
        try holding.execute("PRAGMA temp_store = FILE")
        try holding.execute("CREATE TEMP TABLE kept (a INTEGER)")
        try holding.execute("INSERT INTO temp.kept VALUES (42)")
        let plainSetting = try plain.scalar("PRAGMA temp_store")?.int64
        // When each builds its rollup from empty
        _ = try Rollup(connection: plain).refresh()
        _ = try Rollup(connection: holding).refresh()
        // Then the temporary table and both settings are as they were, and the rollups are the same
        #expect(try holding.scalar("SELECT a FROM temp.kept")?.int64 == 42)
        #expect(try holding.scalar("PRAGMA temp_store")?.int64 == 1)
        #expect(try plain.scalar("PRAGMA temp_store")?.int64 == plainSetting)
        #expect(try Self.rows(Self.stored, plain) == Self.rows(Self.stored, holding))
    }
}

struct ReportsMigrationTests {
    /// A stale rollup row in the text-keyed layouts of migrations 2–4 (wrong on purpose: if it
    /// survived, the golden files would not match).
    static let staleRow = """
        INSERT INTO report_presentations (pw_id, first_at, first_id, placement, user_id, impression_at,
          plan_selected, purchase_started) VALUES ('AAAAAAAA-0000-0000-0000-000000000001', 1793491200000,
          '00000000-0000-0000-0000-000000000001', 'stale', 'u-stale', 1793491200000, 1, 1)
        """

    @Test(arguments: [2, 4])
    func aStoreWithAnOlderRollupSchemaIsRebuiltAfterMigrating(_ version: Int) throws {
        // Given a store at an older schema version whose rollup, keys, watermark and (at 4) dirty
        // buckets and day partials were already written
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("db")
        let old = try LegacyStore.create(at: path, version: version, from: ReportSchema.migrator)
        try ReportFixture.insert(ReportFixture.events, into: old)
        try old.run(Self.staleRow)
        try old.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '1000')")
        if version >= 4 {
            try old.run("INSERT INTO report_placements (key, placement) VALUES (7, 'stale')")
            try old.run("INSERT INTO report_dirty_buckets (bucket) VALUES (42)")
            try old.run("INSERT INTO report_day_partials (day_start, day_end, partial) VALUES (0, 1, x'00')")
        }
        // When the current program opens it and reports
        let connection = try ReportSchema.open(path: path)
        #expect(try connection.scalar("SELECT count(*) FROM report_day_partials")?.int64 == 0)
        let summary = try FunnelReport(connection: connection, now: .constant(ReportFixture.day5))
            .report(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        // Then the rollups were rebuilt from every event and the reports are right
        #expect(try connection.scalar("PRAGMA user_version")?.int64 == Int64(ReportSchema.migrator.latestVersion))
        #expect(summary.eventsRead == Int64(ReportFixture.events.count))
        #expect(try connection.scalar("SELECT count(*) FROM report_placements WHERE placement = 'stale'")?.int64 == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_dirty_buckets WHERE bucket = 42")?.int64 == 0)
        for file in [
            "encounter_funnel.csv", "conversion_funnel.csv", "cohort_conversion.csv", "placement_summary.csv",
            "product_mix.csv",
        ] {
            try expectGolden("utc", file, in: folder.path("out"))
        }
    }
}

struct RollupContractTests {
    @Test func anIdThatIsNotCanonicalUUIDTextStopsTheRefreshWithATypedErrorAndKeepsTheWatermark() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given a store whose events include one with a lowercase pw_id (the store never writes one)
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        try connection.run("UPDATE events SET pw_id = lower(pw_id) WHERE rowid = 3")
        // When the rollup is refreshed
        let error = #expect(throws: StorageError.self) { try Rollup(connection: connection).refresh() }
        // Then the error names the row and what to do without printing the id, and nothing was committed
        #expect(error?.kind == .constraint)
        #expect(error?.message.contains("rowid 3 ") == true)
        #expect(error?.message.contains("aaaaaaaa") == false)
        #expect(try Rollup(connection: connection).watermark() == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_presentations")?.int64 == 0)
    }

    @Test func keyTablesThatCannotLoadStopTheRefreshBeforeAnyChunkAndTheNextRefreshCompletes() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given random events folded in chunks of 50 (the reader folds the first chunk with
        // provisional keys while this thread loads the key tables), and a customer table that is gone
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 37)
        try connection.execute("ALTER TABLE report_customers RENAME TO report_customers_away")
        var rollup = Rollup(connection: connection)
        rollup.chunkSize = 50
        // When the refresh runs; Then it fails with the storage error (the reader is not left waiting)
        let error = #expect(throws: StorageError.self) { try rollup.refresh() }
        #expect(error?.kind == .other, "no such table: \(String(describing: error))")
        // And nothing was folded
        #expect(try rollup.watermark() == 0)
        #expect(try connection.scalar("SELECT count(*) FROM report_presentations")?.int64 == 0)
        // And with the table back the next refresh builds the rollup the SQL definition describes
        try connection.execute("ALTER TABLE report_customers_away RENAME TO report_customers")
        _ = try rollup.refresh()
        #expect(
            try RollupTests.rows(RollupTests.stored, connection) == RollupTests.rows(RollupTests.reference, connection))
    }

    @Test func aFailureInTheReadingThreadKeepsEveryCommittedChunkAndTheNextRefreshCompletes() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given random events, one of them (rowid 300) with a pw_id the rollup cannot read, folded in
        // chunks of 50 (several chunks: the reading thread runs ahead of the merging one)
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 31)
        let pwID = try #require(try connection.scalar("SELECT pw_id FROM events WHERE rowid = 300")?.string)
        try connection.run("UPDATE events SET pw_id = lower(pw_id) WHERE rowid = 300")
        var rollup = Rollup(connection: connection)
        rollup.chunkSize = 50
        // When the refresh fails on that chunk
        let error = #expect(throws: StorageError.self) { try rollup.refresh() }
        #expect(error?.kind == .constraint, "\(String(describing: error))")
        // Then the chunks before it are committed with their watermark and nothing of it is
        #expect(try rollup.watermark() == 250)
        #expect(try connection.scalar("SELECT count(*) FROM report_dirty_buckets")?.int64 ?? 0 > 0)
        // And once the row is repaired the next refresh completes the same rollup as one pass
        try connection.run("UPDATE events SET pw_id = ? WHERE rowid = 300", [.text(pwID)])
        let result = try rollup.refresh()
        let events = try #require(try connection.scalar("SELECT count(*) FROM events")?.int64)
        #expect(result.watermarkBefore == 250 && result.eventsRead == events - 250)
        #expect(
            try RollupTests.rows(RollupTests.stored, connection) == RollupTests.rows(RollupTests.reference, connection))
    }

    @Test func uuidKeysOrderLikeTheirCanonicalText() throws {
        // Given random UUIDs, their text and their 16-byte keys
        var random = SeededGenerator(seed: 3)
        let texts = (0..<500).map { _ in
            UUIDv7.make(milliseconds: Int64(random.below(1_000)), using: &random).uuidString
        }
        func key(_ text: String) -> UUIDKey? {
            var text = text
            return text.withUTF8 { UUIDKey(text: UnsafeRawBufferPointer($0)) }
        }
        // Then every key parses, and sorting by key equals sorting the text by code points
        let keys = texts.compactMap(key)
        #expect(keys.count == texts.count)
        let byKey = zip(texts, keys).sorted { $0.1 < $1.1 }.map(\.0)
        #expect(byKey == texts.sorted { codePointLess($0, $1) })
        #expect(key("aaaaaaaa-0000-0000-0000-000000000001") == nil)
        #expect(key("AAAAAAAA00000-0000-0000-000000000001") == nil)
        #expect(key("AAAAAAAA-0000-0000-0000-00000000001") == nil)
    }
}
