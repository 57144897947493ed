import Foundation
import PaywallLock
import PaywallSQLite
import PaywallTestSupport

/// The end-of-soak checks: drain, then no loss, no duplicate, every impression delivered or
/// dead-lettered (and delivered only if RevenueCat accepted it), the ``StoreInvariants`` of any
/// store at rest (integrity included), and the nightly outputs equal to a full recompute from scratch.
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
        // Every stored impression in exactly one place, no stray row, the buckets equal to direct
        // counts, integrity: the invariants of any store at rest.
        let invariants = try StoreInvariants(connection: connection)
        failures += invariants.violations
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
        expect(standIn.violations.isEmpty, "wire-format violations: \(Array(standIn.violations.prefix(3)))")
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
            ("integrity_check", invariants.integrity),
        ]
    }
}
