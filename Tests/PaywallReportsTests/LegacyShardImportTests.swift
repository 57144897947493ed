import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// `import` of a store written by an older program keeps its impressions' delivery state too: the
/// first outbox (a `state` column, legacy versions 1–5) and the rowid-keyed outbox without
/// `by_device` (6–9), real files of each version, imported read-only into a new store. Neither is a
/// collector's store: what it delivered, the device that recorded it forwarded (`by_device`).
struct LegacyShardImportTests {
    @Test(arguments: [1, 5, 6, 9])
    func aLegacyStoresDeliveredDeadAndPendingImpressionsKeepTheirState(version: Int) throws {
        // Given a real file of legacy version N holding the fixture (delivered, pending and dead impressions)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("v\(version).sqlite")
        let old = try LegacyStore.create(at: path, version: version, from: ReportSchema.migrator)
        try ReportFixture.insert(ReportFixture.events, into: old)
        // When it is imported into a new store
        let store = try EventStore(path: folder.path("merged.sqlite"), now: .constant(ReportFixture.day5))
        let result = try Importer(store: store).importFiles([path])
        #expect(result.imported == ReportFixture.events.count)
        // Then each impression is where the fixture put it: delivered, pending, or dead with its letter
        let states = Dictionary(
            uniqueKeysWithValues: try store.connection.all(
                """
                SELECT e.id,
                  CASE WHEN EXISTS (SELECT 1 FROM outbox WHERE event_rowid = e.rowid) THEN 'pending'
                       WHEN EXISTS (SELECT 1 FROM deliveries WHERE event_rowid = e.rowid AND by_device = 1) THEN 'delivered'
                       WHEN EXISTS (SELECT 1 FROM dead_letters WHERE event_id = e.id AND requeued_at IS NULL AND status = 400)
                         THEN 'dead'
                       ELSE 'none' END
                FROM events AS e WHERE e.name = 'paywall_shown'
                """
            ) { ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "") })
        let impressions = ReportFixture.events.filter { $0.name == "paywall_shown" }
        #expect(states.count == impressions.count)
        for event in impressions {
            #expect(
                states[ReportFixture.uuid(event.id)] == event.delivery, "impression \(event.id) of version \(version)")
        }
        #expect(Set(impressions.map(\.delivery)) == ["delivered", "pending", "dead"])
    }
}
