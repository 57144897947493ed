import Foundation
import PaywallLock
import PaywallSQLite
import PaywallTestSupport
import Testing

/// A collector's store is a shard: `paywall-analytics import shard.sqlite` (the built binary) into a
/// report store keeps every impression's delivery state, so nothing the collector (or the device)
/// delivered, nor anything RevenueCat refused, is queued again; what is pending stays pending.
@Suite(.serialized)
struct ShardImportTests {
    /// Each impression's delivery state (`pending`, `delivered`, `forwarded_by_device`, `dead <status>
    /// <reason>`), checking that every impression is in exactly one.
    static func states(_ path: String) throws -> [String: String] {
        let connection = try Connection(path: path, options: OpenOptions(readOnly: true, create: false))
        let rows = try connection.all(
            """
            SELECT e.id,
              (SELECT count(*) FROM outbox WHERE event_rowid = e.rowid)
              + (SELECT count(*) FROM deliveries WHERE event_rowid = e.rowid)
              + (SELECT count(*) > 0 FROM dead_letters WHERE event_id = e.id AND requeued_at IS NULL),
              CASE WHEN EXISTS (SELECT 1 FROM outbox WHERE event_rowid = e.rowid) THEN 'pending'
                   WHEN EXISTS (SELECT 1 FROM deliveries WHERE event_rowid = e.rowid AND by_device = 1)
                     THEN 'forwarded_by_device'
                   WHEN EXISTS (SELECT 1 FROM deliveries WHERE event_rowid = e.rowid) THEN 'delivered'
                   ELSE (SELECT 'dead ' || status || ' ' || reason FROM dead_letters
                         WHERE event_id = e.id AND requeued_at IS NULL) END
            FROM events AS e WHERE e.name = 'paywall_shown'
            """
        ) { ($0.string(at: 0) ?? "", $0.int64(at: 1), $0.string(at: 2) ?? "none") }
        for row in rows { #expect(row.1 == 1, "impression \(row.0) is in \(row.1) delivery states in \(path)") }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.2) })
    }

    /// Polls `condition` every 0.1 s for at most `seconds` (generous: a loaded CI machine).
    @Test func importingACollectorsShardKeepsEveryImpressionsDeliveryState() throws {
        // Given a collector forwarding to a RevenueCat stand-in that accepts, then refuses with 400
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let refuse = Lock(false)
        standIn.respondByDefault { _, _ in
            refuse.withLock { $0 } ? .status(400, body: #"{"code":7225,"message":"invalid event"}"#) : .accepted
        }
        let revenueCat = ["REVENUECAT_API_KEY": "appl_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")]
        let forwarding = ["--revenuecat-endpoint", standIn.baseURL.absoluteString]
        let harness = try CollectorHarness(arguments: forwarding, environment: revenueCat)
        let delivered = EventLines.batch(pairs: 5)
        #expect(try harness.post(EventLines.body(delivered.lines)).status == 200)
        let shown = { (batch: (lines: [String], ids: [String])) in
            stride(from: 0, to: batch.ids.count, by: 2).map { batch.ids[$0] }
        }
        #expect(
            Eventually.holdsBlocking {
                Set(standIn.acceptedEventIDs.keys.map { $0.uppercased() }).isSuperset(of: shown(delivered))
            })
        refuse.withLock { $0 = true }
        let refused = EventLines.batch(pairs: 3)
        #expect(try harness.post(EventLines.body(refused.lines)).status == 200)
        #expect(
            try Eventually.holdsBlocking {
                try harness.count("SELECT count(*) FROM dead_letters WHERE requeued_at IS NULL") == 3
            })
        // and installs that forward their impressions themselves
        let byDevice = EventLines.batch(pairs: 3)
        #expect(try harness.post(EventLines.body(byDevice.lines), forwarding: "device").status == 200)
        // and, once the collector runs without a RevenueCat key, impressions that stay pending
        #expect(harness.server.stop(SIGTERM).status == 0)
        try harness.restart()
        let pending = EventLines.batch(pairs: 4)
        #expect(try harness.post(EventLines.body(pending.lines)).status == 200)
        #expect(harness.server.stop(SIGTERM).status == 0)
        let shard = try Self.states(harness.db)
        var wanted: [String: String] = [:]
        for id in shown(delivered) { wanted[id] = "delivered" }
        // (RevenueCat's answer as the forwarder words it: whatever the shard holds, once it is a 400)
        for id in shown(refused) {
            wanted[id] = shard[id].flatMap { $0.hasPrefix("dead 400 ") ? $0 : nil } ?? "dead 400"
        }
        for id in shown(byDevice) { wanted[id] = "forwarded_by_device" }
        for id in shown(pending) { wanted[id] = "pending" }
        #expect(shard == wanted)

        // When the shard is imported into a report store by the built binary
        let report = harness.folder.path("report.sqlite")
        let imported = try harness.cli.runBlocking(["import", harness.db, "--db", report])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 30, duplicates 0, conflicts 0, quarantined 0"))
        // Then each impression is in the state the shard gave it, dead letters with RevenueCat's answer
        #expect(try Self.states(report) == wanted)
        #expect(try Self.states(report).values.contains { $0.hasPrefix("dead 400 ") && $0.count > 9 })
        // And importing the shard again adds nothing and queues nothing
        let again = try harness.cli.runBlocking(["import", harness.db, "--db", report])
        #expect(again.stdout.contains("imported 0, duplicates 30"))
        #expect(try Self.states(report) == wanted)
    }
}
