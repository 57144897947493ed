import Foundation
import PaywallLock
import PaywallSQLite
import PaywallTestSupport

/// The end-of-soak checks: drain, then no loss, no duplicate, every impression delivered or
/// dead-lettered (and delivered only if RevenueCat accepted it), integrity, and the nightly outputs
/// equal to a full recompute from scratch.
final class SoakChecks {
    let soak: Soak
    let standIn: RevenueCatStandIn
    var figures: [(String, String)] = []
    var failures: [String] = []

    init(soak: Soak, standIn: RevenueCatStandIn) {
        self.soak = soak
        self.standIn = standIn
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { failures.append(message()) }
    }

    func run() throws -> [String] {
        try drain()
        try checkStore()
        try checkNightly()
        return failures
    }

    /// Every impression still pending is retried with RevenueCat now accepting everything and the
    /// forwarder's clock 3 hours ahead (past any backoff, Retry-After cap and lease of a killed run).
    func drain() throws {
        standIn.respondByDefault { _, _ in .accepted }
        let future = Int64(Date().timeIntervalSince1970 * 1000) + 3 * 3_600_000
        for pass in 1...100 {
            let result = try SoakChild(
                soak.binary("forwarder-crash-helper"),
                ["forward", soak.db, String(standIn.port), String(future + Int64(pass))],
                environment: ["REVENUECAT_API_KEY": soak.key]
            ).wait()
            expect(
                result.status == 0,
                "final drain: forwarder-crash-helper exited \(result.status): \(result.stderr.prefix(300))")
            if result.stdout.hasPrefix("delivered=0 will_retry=0 ") || result.status != 0 { break }
        }
    }

    func checkStore() throws {
        let connection = try Connection(path: soak.db, options: .readOnly)
        func count(_ sql: String) throws -> Int64 { try connection.scalar(sql)?.int64 ?? -1 }
        let stored = Set(try connection.all("SELECT id FROM events") { $0.string(at: 0) ?? "" })
        let acknowledged = soak.tally.withLock { $0.acknowledged }
        let lost = Set(acknowledged).subtracting(stored)
        expect(lost.isEmpty, "\(lost.count) acknowledged events are missing, e.g. \(Array(lost.prefix(3)))")
        expect(Set(acknowledged).count == acknowledged.count, "an id was acknowledged twice")
        let duplicates = try count(
            "SELECT count(*) FROM (SELECT pw_id, name FROM events GROUP BY pw_id, name HAVING count(*) > 1)")
        expect(duplicates == 0, "\(duplicates) presentations hold the same event twice")
        let impressions = try count("SELECT count(*) FROM events WHERE name = 'paywall_shown'")
        // Every stored impression is in exactly one place: outbox, deliveries or an open dead letter.
        let misplaced = try count(
            """
            SELECT count(*) FROM events AS e WHERE e.name = 'paywall_shown'
              AND (EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.rowid))
                + (EXISTS (SELECT 1 FROM deliveries AS v WHERE v.event_rowid = e.rowid))
                + (EXISTS (SELECT 1 FROM dead_letters AS d WHERE d.event_id = e.id AND d.requeued_at IS NULL)) != 1
            """)
        expect(
            misplaced == 0,
            "\(misplaced) impressions are not in exactly one of outbox, deliveries and open dead letters")
        let strays = try count(
            """
            SELECT count(*) FROM (SELECT event_rowid FROM outbox UNION ALL SELECT event_rowid FROM deliveries) AS r
            WHERE NOT EXISTS (SELECT 1 FROM events AS e WHERE e.rowid = r.event_rowid AND e.name = 'paywall_shown')
            """)
        expect(strays == 0, "\(strays) outbox or delivery rows do not belong to a stored impression")
        let pending = try count("SELECT count(*) FROM outbox")
        expect(pending == 0, "\(pending) impressions are neither delivered nor dead-lettered after the drain")
        let delivered = try connection.all(
            "SELECT e.id FROM deliveries AS v JOIN events AS e ON e.rowid = v.event_rowid"
        ) { $0.string(at: 0) ?? "" }
        let accepted = standIn.acceptedEventIDs
        let unconfirmed = delivered.filter { accepted[$0] == nil }
        expect(unconfirmed.isEmpty, "\(unconfirmed.count) impressions are delivered but RevenueCat never accepted them")
        let shown = Set(
            try connection.all("SELECT id FROM events WHERE name = 'paywall_shown'") { $0.string(at: 0) ?? "" })
        let phantom = accepted.keys.filter { !shown.contains($0) }
        expect(phantom.isEmpty, "\(phantom.count) ids reached RevenueCat that are not stored impressions")
        let dead = try count("SELECT count(DISTINCT event_id) FROM dead_letters WHERE requeued_at IS NULL")
        let bucketErrors = try count(
            """
            SELECT (SELECT count(*) FROM (
                      SELECT bucket, delivered, by_device FROM report_delivery_buckets WHERE delivered != 0
                      EXCEPT SELECT occurred_at / 900000, count(*), sum(by_device) FROM deliveries GROUP BY 1))
                 + (SELECT count(*) FROM (
                      SELECT occurred_at / 900000, count(*), sum(by_device) FROM deliveries GROUP BY 1
                      EXCEPT SELECT bucket, delivered, by_device FROM report_delivery_buckets))
            """)
        expect(bucketErrors == 0, "\(bucketErrors) delivery buckets differ from a direct count of the deliveries")
        let deadBucketErrors = try count(
            """
            WITH direct AS (
              SELECT e.occurred_at / 900000 AS bucket, count(*) AS dead
              FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS l
              CROSS JOIN events AS e ON e.id = l.event_id AND e.name = 'paywall_shown'
              GROUP BY 1)
            SELECT (SELECT count(*) FROM (SELECT bucket, dead FROM report_dead_buckets WHERE dead != 0 EXCEPT SELECT * FROM direct))
                 + (SELECT count(*) FROM (SELECT * FROM direct EXCEPT SELECT bucket, dead FROM report_dead_buckets))
            """)
        expect(
            deadBucketErrors == 0,
            "\(deadBucketErrors) dead-letter buckets differ from a direct count of the open dead letters")
        expect(standIn.violations.isEmpty, "wire-format violations: \(Array(standIn.violations.prefix(3)))")
        let integrity = try connection.scalar("PRAGMA integrity_check")?.string
        expect(integrity == "ok", "integrity_check: \(integrity ?? "nil")")
        let resent = accepted.values.filter { $0 > 1 }.count
        figures += [
            (
                "events",
                "\(stored.count) stored (\(acknowledged.count) acknowledged, 0 lost: \(lost.isEmpty)), \(duplicates) duplicated"
            ),
            ("impressions", "\(impressions): \(delivered.count) delivered, \(dead) dead-lettered, \(pending) pending"),
            (
                "RevenueCat",
                "\(accepted.count) distinct ids accepted, \(resent) accepted more than once (at-least-once after a kill), \(standIn.requestCount) requests"
            ),
            ("integrity_check", integrity ?? "nil"),
        ]
    }
}
