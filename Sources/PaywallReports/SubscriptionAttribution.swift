import Foundation
import PaywallSQLite

/// The subscription side of the reports (funnels.md "Revenue"): every stored subscription's start,
/// the presentation it is attributed to (the last one seen before buying), and what it earned.
///
/// Read in full from the subscription tables and the report rollups, inside the report's read
/// transaction, by a range report, a filtered run and the SQL engine; the unfiltered nightly job
/// keeps the same result between runs instead (``SubscriptionState``), and the tests hold the two equal.
/// A store without the subscription tables (one made before they existed) reads as empty.
///
/// How it reads (``SubscriptionReads``, measured by `paywall-bench report subscriptions`): one pass
/// over `subscription_events` in `original_transaction_id` order folds each subscription as its
/// rows go by; the starts' customer keys come from a merge with `subscription_customer_keys` in
/// `event_rowid` order; only the buyers' names and presentations come back from SQLite.
struct SubscriptionAttribution {
    /// One attributed subscription: where its start went and what its events add up to.
    struct Subscription: Equatable {
        /// The presentation's first event time (its day), placement name, offering and customer key.
        var firstAt: Int64
        var placement: String
        var offering: String
        var customer: Int64
        /// Whether the start is a trial start; converted / pending for trials only.
        var trial: Bool
        var converted: Bool
        var pending: Bool
        /// The start's expiration time (a trial is pending while it is after the run's as-of time).
        var expirationAt: Int64? = nil
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
    /// Each is a multiset: only the count per day is read, not the order. Data quality is about the
    /// whole store, so with a context filter the unattributed ones are still those no presentation of
    /// the whole store takes (``subscriptions`` are the filtered store's).
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

    /// Reads and attributes every stored subscription; `nowMs` is the run's time. With a
    /// `contextFilter`, ``subscriptions`` are those of a store holding only the presentations whose
    /// first event matches it: a start is attributed to the last matching presentation in its window,
    /// and a start with none is unattributed there (it earns the filtered report nothing).
    static func load(_ db: Database, nowMs: Int64, contextFilter: ContextFilter? = nil) throws
        -> SubscriptionAttribution
    {
        var result = SubscriptionAttribution()
        result.asOf = nowMs
        guard try tablesExist(db) else { return result }
        var fold = try SubscriptionReads.events(db, nowMs: nowMs)
        result.asOf = fold.asOf ?? nowMs
        result.productionStamps = fold.productionStamps
        result.sandboxStamps = fold.sandboxStamps
        result.unattributedStamps = fold.unattributedStamps
        fold.starts.sort { $0.rowid < $1.rowid }
        let buyers = try SubscriptionReads.buyers(db, starts: fold.starts)
        var windows: [(from: Int64, to: Int64)] = []
        for (index, start) in fold.starts.enumerated() {
            guard let purchasedAt = start.purchasedAt, !buyers.customers(ofStart: index).isEmpty else { continue }
            windows.append((purchasedAt - lookbackMs, purchasedAt + skewMs))
        }
        var presentations = try SubscriptionReads.presentations(
            db, customers: buyers.customers, windows: windows, contextFilter: contextFilter)
        var chosenOfStart = [(index: Int, customer: Int64)?](repeating: nil, count: fold.starts.count)

        for (index, start) in fold.starts.enumerated() {
            var chosen: (index: Int, customer: Int64)?
            var inWholeStore = false  // some presentation of the whole store is in the window
            if let purchasedAt = start.purchasedAt {
                let earliest = purchasedAt - lookbackMs
                let latest = purchasedAt + skewMs
                for customer in buyers.customers(ofStart: index) {
                    for candidate in presentations.presentations(of: customer).lazy.map(Int.init)
                    where presentations.impressionAt[candidate] >= earliest
                        && presentations.impressionAt[candidate] <= latest
                    {
                        inWholeStore = true
                        guard presentations.isKept(candidate) else { continue }
                        if let best = chosen, !presentations.isLater(candidate, than: best.index) { continue }
                        chosen = (candidate, customer)
                    }
                }
            }
            guard let chosen else {
                if !inWholeStore { result.unattributedStamps += fold.groupStamps[start.stamps] }
                continue
            }
            chosenOfStart[index] = chosen
        }
        try presentations.readDetails(db, of: chosenOfStart.compactMap { $0?.index })
        result.subscriptions.reserveCapacity(chosenOfStart.count { $0 != nil })  // no copies while it grows
        for (index, start) in fold.starts.enumerated() {
            guard let chosen = chosenOfStart[index] else { continue }
            let converted = start.trial && start.renewedAsConversion
            result.subscriptions.append(
                Subscription(
                    firstAt: presentations.firstAt[chosen.index],
                    placement: presentations.placements[presentations.placementKey[chosen.index]] ?? "",
                    offering: presentations.offering(chosen.index), customer: chosen.customer, trial: start.trial,
                    converted: converted,
                    pending: start.trial && !converted && (start.expirationAt ?? .min) > result.asOf,
                    expirationAt: start.expirationAt,
                    refunds: start.refunds, revenueMicros: start.revenueMicros, proceedsMicros: start.proceedsMicros))
        }
        return result
    }
}
