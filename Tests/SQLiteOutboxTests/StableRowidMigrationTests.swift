import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// Migration 8 (`events-with-stable-rowids`): the outbox and deliveries key on the events rowid,
/// so the rowid must survive the migration and a `VACUUM` run by hand.
struct StableRowidMigrationTests {
    let directory = TemporaryDirectory()

    @Test func eventsKeepTheirRowidsThroughTheMigrationAndThroughVacuum() throws {
        // Given a version-7 store whose events have gaps in their rowids (1, 2, 50, 51, 900) and
        // whose pending impressions sit in the outbox under those rowids
        let path = directory.path("v7.sqlite")
        let index = try #require(Schema.legacyIdentifiers.firstIndex(of: "store/events-with-stable-rowids"))
        let old = try LegacyStore.create(at: path, version: index, from: ReportSchema.migrator)
        var ids: [Int64: String] = [:]
        try old.transaction { db in
            for (n, rowid) in [Int64(1), 2, 50, 51, 900].enumerated() {
                let id = UUIDv7.make(milliseconds: 1_764_400_000_000 + Int64(n)).uuidString
                ids[rowid] = id
                try db.run(
                    """
                    INSERT INTO events (rowid, id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source)
                    VALUES (?1, ?2, 'paywall_shown', ?3, ?3, 'u', 1, ?2, 'onboarding')
                    """, [.integer(rowid), .text(id), .integer(1_764_400_000_000 + Int64(n))])
                try db.run(
                    "INSERT INTO outbox (event_rowid, occurred_at) VALUES (?1, ?2)",
                    [.integer(rowid), .integer(1_764_400_000_000 + Int64(n))])
            }
        }
        // When the current program opens it, and then somebody runs VACUUM
        let store = try EventStore(path: path, now: .constant(1_764_500_000_000))
        let declared = try store.connection.all("SELECT name, pk FROM pragma_table_info('events') WHERE pk > 0") {
            ($0.string(at: 0) ?? "", $0.int64(at: 1))
        }
        try store.connection.execute("VACUUM")
        // Then `seq` is the declared INTEGER PRIMARY KEY, every event kept its rowid, and each outbox
        // row still points at its own impression
        #expect(declared.map(\.0) == ["seq"])
        let rows = try store.connection.all("SELECT rowid, seq, id FROM events ORDER BY rowid") {
            ($0.int64(at: 0), $0.int64(at: 1), $0.string(at: 2) ?? "")
        }
        #expect(rows.map(\.0) == [1, 2, 50, 51, 900])
        #expect(rows.allSatisfy { $0.0 == $0.1 && ids[$0.0] == $0.2 })
        let due = try SQLiteOutbox(store: store).due(now: 1_764_500_000_000, limit: 10)
        #expect(Set(due.map(\.event.id.uuidString)) == Set(ids.values))
        // And an event inserted afterwards gets the next rowid, with the id still unique
        let later = UUIDv7.make(milliseconds: 1_764_400_100_000)
        let event = EventRecord(
            id: later, name: .paywallShown, occurredAt: 1_764_400_100_000, recordedAt: nil, userID: "u",
            sessionID: nil, catalogVersion: 1,
            properties: EventProperties(pwID: later, source: "onboarding"))
        #expect(try store.insert([event]) == 1)
        #expect(try store.insert([event]) == 0)
        #expect(try store.connection.scalar("SELECT max(rowid) FROM events")?.int64 == 901)
    }
}
