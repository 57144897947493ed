import Foundation
import PaywallSQLite

/// The subscription side of the reports (funnels.md "Revenue"): every stored subscription's start,
/// the presentation it is attributed to (the last one seen before buying), and what it earned.
///
/// Read in full from the subscription tables and the report rollups on every run, inside the
/// report's read transaction, so a range report, the nightly job and either engine see the same
/// attribution (a late renewal or a late start changes exactly the days its presentation is on).
/// A store without the subscription tables (one made before they existed) reads as empty.
struct SubscriptionAttribution {
    /// One attributed subscription: where its start went and what its events add up to.
    struct Subscription {
        /// The presentation's first event time (its day), placement name, offering and customer key.
        var firstAt: Int64
        var placement: String
        var offering: String
        var customer: Int64
        /// Whether the start is a trial start; converted / pending for trials only.
        var trial: Bool
        var converted: Bool
        var pending: Bool
        /// Attributed refunds (`CANCELLATION` with a negative price).
        var refunds: Int64 = 0
        /// Sums of the revenue events' amounts and proceeds, in micro-dollars (exact).
        var revenueMicros: Int64 = 0
        var proceedsMicros: Int64 = 0
    }

    /// The attributed subscriptions (order: by start rowid).
    var subscriptions: [Subscription] = []
    /// Production subscription events by their `event_timestamp_ms`: all, and those of unattributed
    /// subscriptions; sandbox and `TEST` events' timestamps (for data quality; `NULL` stamps omitted).
    var productionStamps: [Int64] = []
    var unattributedStamps: [Int64] = []
    var sandboxStamps: [Int64] = []
    /// The run's as-of time (greatest production `event_timestamp_ms` not after the run's time;
    /// the run's time itself when there is none).
    var asOf: Int64 = 0

    /// The attribution window: a first impression at least this long before the purchase …
    static let lookbackMs: Int64 = 259_200_000
    /// … and at most this long after it (clock skew between phone and store).
    static let skewMs: Int64 = 300_000

    /// Whether the store has the subscription tables.
    static func tablesExist(_ db: Database) throws -> Bool {
        let count = try db.scalar(
            """
            SELECT count(*) FROM sqlite_schema WHERE type = 'table'
              AND name IN ('subscription_events', 'subscription_customer_keys')
            """)
        return count?.int64 == 2
    }

    private struct Event {
        var rowid: Int64
        var id: String
        var type: String?
        var periodType: String?
        var purchasedAt: Int64?
        var expirationAt: Int64?
        var trialConversion: Bool
        var price: Int64?
        var proceeds: Int64?
        var stamp: Int64?
    }

    private struct Candidate {
        var impressionAt: Int64
        var pwID: [UInt8]
        var firstAt: Int64
        var placementKey: Int64
        var offering: String
    }

    /// Reads and attributes every stored subscription; `nowMs` is the run's time.
    static func load(_ db: Database, nowMs: Int64) throws -> SubscriptionAttribution {
        var result = SubscriptionAttribution()
        result.asOf = nowMs
        guard try tablesExist(db) else { return result }
        if let asOf = try db.scalar(
            "SELECT max(event_timestamp_ms) FROM subscription_events WHERE NOT (environment IS 'SANDBOX' OR type IS 'TEST') AND event_timestamp_ms <= ?",
            [.integer(nowMs)])?.int64
        {
            result.asOf = asOf
        }
        result.sandboxStamps = try db.all(
            "SELECT event_timestamp_ms FROM subscription_events WHERE (environment IS 'SANDBOX' OR type IS 'TEST') AND event_timestamp_ms IS NOT NULL"
        ) { $0.int64(at: 0) }

        // Production events grouped by subscription; those without an original transaction form none.
        var bySubscription: [String: [Event]] = [:]
        try db.forEachRow(
            """
            SELECT rowid, id, type, original_transaction_id, period_type, purchased_at_ms, expiration_at_ms,
                   is_trial_conversion, price_micros, proceeds_micros, event_timestamp_ms
            FROM subscription_events WHERE NOT (environment IS 'SANDBOX' OR type IS 'TEST')
            """
        ) { row in
            let event = Event(
                rowid: row.int64(at: 0), id: row.string(at: 1) ?? "", type: row.string(at: 2),
                periodType: row.string(at: 4), purchasedAt: row.optionalInt64(at: 5),
                expirationAt: row.optionalInt64(at: 6), trialConversion: row.optionalInt64(at: 7) == 1,
                price: row.optionalInt64(at: 8), proceeds: row.optionalInt64(at: 9), stamp: row.optionalInt64(at: 10))
            if let stamp = event.stamp { result.productionStamps.append(stamp) }
            if let transaction = row.string(at: 3) {
                bySubscription[transaction, default: []].append(event)
            } else if let stamp = event.stamp {
                result.unattributedStamps.append(stamp)
            }
            return true
        }

        // Each subscription's start: the purchase with the smallest purchased_at_ms (ties: smallest id).
        var starts: [(transaction: String, start: Event)] = []
        for (transaction, events) in bySubscription {
            let purchases = events.filter { $0.type == "INITIAL_PURCHASE" || $0.type == "NON_RENEWING_PURCHASE" }
            let start = purchases.min { a, b in
                switch (a.purchasedAt, b.purchasedAt) {
                case (let x?, let y?) where x != y: return x < y
                case (nil, _?): return false
                case (_?, nil): return true
                default: return codePointLess(a.id, b.id)
                }
            }
            if let start {
                starts.append((transaction, start))
            } else {  // no start stored: every event of the subscription is unattributed
                result.unattributedStamps += events.compactMap(\.stamp)
            }
        }
        starts.sort { $0.start.rowid < $1.start.rowid }

        // The starts' customer keys, and the presentations (with an impression) of those customers.
        var keysByEvent: [Int64: [String]] = [:]
        let startRowids = Set(starts.map(\.start.rowid))
        try db.forEachRow("SELECT event_rowid, customer_key FROM subscription_customer_keys") { row in
            let rowid = row.int64(at: 0)
            if startRowids.contains(rowid), let key = row.string(at: 1) { keysByEvent[rowid, default: []].append(key) }
            return true
        }
        let names = Set(keysByEvent.values.joined())
        var customerKeys: [String: Int64] = [:]
        if !names.isEmpty {
            try db.forEachRow("SELECT key, user_id FROM report_customers") { row in
                if let name = row.string(at: 1), names.contains(name) { customerKeys[name] = row.int64(at: 0) }
                return true
            }
        }
        var candidates: [Int64: [Candidate]] = [:]
        if !customerKeys.isEmpty {
            let wanted = Set(customerKeys.values)
            try db.forEachRow(
                """
                SELECT customer_key, impression_at, pw_id, first_at, placement_key, coalesce(offering, '')
                FROM report_presentations WHERE impression_at IS NOT NULL
                """
            ) { row in
                let customer = row.int64(at: 0)
                guard wanted.contains(customer) else { return true }
                candidates[customer, default: []].append(
                    Candidate(
                        impressionAt: row.int64(at: 1), pwID: [UInt8](row.data(at: 2) ?? Data()),
                        firstAt: row.int64(at: 3), placementKey: row.int64(at: 4), offering: row.string(at: 5) ?? ""))
                return true
            }
        }
        var placements: [Int64: String] = [:]
        if !candidates.isEmpty {
            try db.forEachRow("SELECT key, placement FROM report_placements") { row in
                placements[row.int64(at: 0)] = row.string(at: 1) ?? ""
                return true
            }
        }

        for (transaction, start) in starts {
            let events = bySubscription[transaction] ?? []
            var chosen: (Candidate, Int64)?
            if let purchasedAt = start.purchasedAt {
                let earliest = purchasedAt - lookbackMs
                let latest = purchasedAt + skewMs
                for name in Set(keysByEvent[start.rowid] ?? []) {
                    guard let customer = customerKeys[name] else { continue }
                    for candidate in candidates[customer] ?? []
                    where candidate.impressionAt >= earliest && candidate.impressionAt <= latest {
                        if let (best, _) = chosen,
                            best.impressionAt > candidate.impressionAt
                                || (best.impressionAt == candidate.impressionAt
                                    && !best.pwID.lexicographicallyPrecedes(candidate.pwID))
                        {
                            continue
                        }
                        chosen = (candidate, customer)
                    }
                }
            }
            guard let (presentation, customer) = chosen else {
                result.unattributedStamps += events.compactMap(\.stamp)
                continue
            }
            let trial = start.periodType == "TRIAL"
            let converted = trial && events.contains { $0.type == "RENEWAL" && $0.trialConversion }
            var subscription = Subscription(
                firstAt: presentation.firstAt, placement: placements[presentation.placementKey] ?? "",
                offering: presentation.offering, customer: customer, trial: trial, converted: converted,
                pending: trial && !converted && (start.expirationAt ?? .min) > result.asOf)
            for event in events {
                let refund = event.type == "CANCELLATION" && (event.price ?? 0) < 0
                guard refund || ["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE"].contains(event.type ?? "")
                else { continue }
                if refund { subscription.refunds += 1 }
                subscription.revenueMicros += event.price ?? 0
                subscription.proceedsMicros += event.proceeds ?? 0
            }
            result.subscriptions.append(subscription)
        }
        return result
    }
}
