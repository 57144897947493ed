import Foundation
import PaywallCore

/// One simulated RevenueCat webhook delivery: the body RevenueCat would post, and when.
public struct SimulatedWebhook: Sendable, Hashable {
    /// The whole body, `{"api_version":"1.0","event":{…}}`, on one line.
    public var body: String
    /// Its `event.id` (a repeated delivery carries the same one).
    public var eventID: String
    /// When it is delivered, Unix milliseconds (a repeat comes after the first delivery).
    public var deliveredAtMs: Int64
}

/// How the subscription side of the demo behaves after a purchase on a paywall.
public struct SubscriptionBehavior: Sendable {
    /// Offerings whose purchases are free trials (a start at price 0 that converts or lapses).
    public var trialOfferings: Set<String>
    /// Length of a free trial, days.
    public var trialDays: Int
    /// Probability a free trial converts into a paid renewal (else it lapses).
    public var trialConversion: Double
    /// Probability each paid period renews (else the subscription expires).
    public var renewal: Double
    /// Probability a paid purchase is refunded a few days later.
    public var refund: Double
    /// Share of purchases made under an anonymous RevenueCat id later identified (an alias).
    public var anonymousShare: Double
    /// Share of deliveries RevenueCat repeats (the same event id again).
    public var redelivery: Double
    /// Sandbox purchases by the app's testers, per real purchase.
    public var sandboxPerPurchase: Double
    /// `TEST` events sent from the dashboard.
    public var testEvents: Int

    /// Creates a behaviour; the defaults are the demo's: the onboarding trial offering, whose
    /// trials mostly lapse (so it converts more and earns less than the paid offering beside it).
    public init(
        trialOfferings: Set<String> = ["onboarding_trial"], trialDays: Int = 7, trialConversion: Double = 0.22,
        renewal: Double = 0.85, refund: Double = 0.04, anonymousShare: Double = 0.25, redelivery: Double = 0.06,
        sandboxPerPurchase: Double = 0.03, testEvents: Int = 2
    ) {
        self.trialOfferings = trialOfferings
        self.trialDays = trialDays
        self.trialConversion = trialConversion
        self.renewal = renewal
        self.refund = refund
        self.anonymousShare = anonymousShare
        self.redelivery = redelivery
        self.sandboxPerPurchase = sandboxPerPurchase
        self.testEvents = testEvents
    }
}

/// Turns the purchases of a simulated population into the webhooks RevenueCat would send about
/// them: initial purchases (free trials for trial offerings, paid otherwise, one-time for a
/// lifetime product), trial conversions or lapses, renewals and expirations, refunds, sandbox
/// purchases and `TEST` events, and repeated deliveries. Only what happens up to the end of the
/// scenario's period is sent; a later trial end is still pending.
///
/// Deterministic: its own generator, seeded from the scenario's seed, so the paywall side of the
/// simulation draws exactly the same numbers with or without it.
///
/// ```swift
/// let summary = PopulationSimulator(scenario: scenario).run(onTime: sink, late: late)
/// let webhooks = SubscriptionSimulator(scenario: scenario).webhooks(for: summary.purchases)
/// ```
public struct SubscriptionSimulator: Sendable {
    /// The population's scenario (seed and period).
    public let scenario: DemoScenario
    /// How subscriptions behave.
    public let behavior: SubscriptionBehavior

    /// Creates a simulator.
    public init(scenario: DemoScenario, behavior: SubscriptionBehavior = SubscriptionBehavior()) {
        self.scenario = scenario
        self.behavior = behavior
    }

    /// A product's price in US dollars (as decimal text) and its period in days (`nil`: one-time).
    public static func plan(_ product: String) -> (price: String, days: Int?) {
        switch product {
        case "pro_weekly": ("4.99", 7)
        case "pro_monthly": ("9.99", 30)
        case "pro_annual": ("59.99", 365)
        case "pro_annual_promo": ("39.99", 365)
        case "pro_lifetime": ("149.99", nil)
        default: ("9.99", 30)
        }
    }

    static let dayMs: Int64 = 86_400_000
    static let countries: [((code: String, tax: String), Double)] = [
        (("US", "0"), 0.5), (("DE", "0.1597"), 0.2), (("GB", "0.1667"), 0.15), (("FR", "0.1667"), 0.15),
    ]

    /// The webhooks for `purchases`, in delivery order (ties: generation order).
    public func webhooks(for purchases: [SimulatedPurchase]) -> [SimulatedWebhook] {
        var random = SeededGenerator(seed: scenario.seed ^ 0x5AB5_C21B_7E00_0001)
        let endMs = scenario.startMs + Int64(scenario.days) * Self.dayMs
        var out: [SimulatedWebhook] = []
        var transaction = 0
        func nextTransaction() -> String {
            transaction += 1
            return String(format: "sim%09d", transaction)
        }
        func deliver(_ event: [(String, String)], at time: Int64) {
            guard time <= endMs else { return }
            let id = UUIDv7.make(milliseconds: time, using: &random).uuidString
            let fields = [("id", JSONString.quoted(id))] + event + [("event_timestamp_ms", String(time))]
            let body =
                #"{"api_version":"1.0","event":{"#
                + fields.map { JSONString.quoted($0.0) + ":" + $0.1 }.joined(separator: ",")
                + "}}"
            out.append(SimulatedWebhook(body: body, eventID: id, deliveredAtMs: time + 2_000))
            if random.chance(behavior.redelivery) {
                // RevenueCat retries after 5 to 80 minutes.
                let retry = time + Int64(random.uniform(300...4_800) * 1_000)
                out.append(SimulatedWebhook(body: body, eventID: id, deliveredAtMs: retry))
            }
        }
        for purchase in purchases {
            let (price, days) = Self.plan(purchase.product)
            let country = random.weighted(Self.countries)
            var customer: [(String, String)] = [("app_user_id", JSONString.quoted(purchase.userID))]
            if random.chance(behavior.anonymousShare) {
                let anonymous = "$RCAnonymousID:" + String(format: "%016llx", random.next())
                customer += [
                    ("original_app_user_id", JSONString.quoted(anonymous)),
                    ("aliases", "[\(JSONString.quoted(anonymous)),\(JSONString.quoted(purchase.userID))]"),
                ]
            } else {
                customer += [
                    ("original_app_user_id", JSONString.quoted(purchase.userID)),
                    ("aliases", "[\(JSONString.quoted(purchase.userID))]"),
                ]
            }
            let original = nextTransaction()
            func event(
                _ type: String, period: String, transaction: String, at: Int64, expires: Int64?, price: String?,
                extra: [(String, String)] = []
            ) -> [(String, String)] {
                var fields: [(String, String)] = [("type", JSONString.quoted(type)), ("app_id", #""app_demo""#)]
                fields += customer
                fields += [
                    ("product_id", JSONString.quoted(purchase.product)), ("period_type", JSONString.quoted(period)),
                    ("purchased_at_ms", String(at)), ("expiration_at_ms", expires.map(String.init) ?? "null"),
                    ("environment", #""PRODUCTION""#), ("store", #""APP_STORE""#),
                    ("transaction_id", JSONString.quoted(transaction)),
                    ("original_transaction_id", JSONString.quoted(original)),
                    ("presented_offering_id", JSONString.quoted(purchase.offeringID)),
                    ("country_code", JSONString.quoted(country.code)), ("currency", #""USD""#),
                ]
                if let price {
                    fields += [
                        ("price", price), ("price_in_purchased_currency", price), ("tax_percentage", country.tax),
                        ("commission_percentage", "0.15"),
                    ]
                }
                return fields + extra
            }
            let bought = purchase.purchasedAtMs + Int64(random.uniform(1...20) * 1_000)
            guard let days else {
                deliver(
                    event(
                        "NON_RENEWING_PURCHASE", period: "NORMAL", transaction: original, at: bought, expires: nil,
                        price: price), at: bought)
                if random.chance(behavior.refund) {
                    let at = bought + Int64(random.uniform(1...6) * Double(Self.dayMs))
                    deliver(
                        event(
                            "CANCELLATION", period: "NORMAL", transaction: original, at: bought, expires: nil,
                            price: "-" + price,
                            extra: [("cancel_reason", #""CUSTOMER_SUPPORT""#)]), at: at)
                }
                continue
            }
            let periodMs = Int64(days) * Self.dayMs
            var paidFrom: Int64
            if behavior.trialOfferings.contains(purchase.offeringID) {
                let trialEnd = bought + Int64(behavior.trialDays) * Self.dayMs
                deliver(
                    event(
                        "INITIAL_PURCHASE", period: "TRIAL", transaction: original, at: bought, expires: trialEnd,
                        price: "0"), at: bought)
                guard trialEnd <= endMs else { continue }  // still in its trial when the period ends
                guard random.chance(behavior.trialConversion) else {
                    deliver(
                        event(
                            "EXPIRATION", period: "TRIAL", transaction: original, at: bought, expires: trialEnd,
                            price: nil,
                            extra: [("expiration_reason", #""UNSUBSCRIBE""#)]), at: trialEnd)
                    continue
                }
                deliver(
                    event(
                        "RENEWAL", period: "NORMAL", transaction: nextTransaction(), at: trialEnd,
                        expires: trialEnd + periodMs,
                        price: price, extra: [("is_trial_conversion", "true"), ("renewal_number", "1")]), at: trialEnd)
                paidFrom = trialEnd
            } else {
                deliver(
                    event(
                        "INITIAL_PURCHASE", period: "NORMAL", transaction: original, at: bought,
                        expires: bought + periodMs, price: price), at: bought)
                paidFrom = bought
            }
            if random.chance(behavior.refund) {
                let at = paidFrom + Int64(random.uniform(1...6) * Double(Self.dayMs))
                deliver(
                    event(
                        "CANCELLATION", period: "NORMAL", transaction: original, at: paidFrom,
                        expires: paidFrom + periodMs,
                        price: "-" + price, extra: [("cancel_reason", #""CUSTOMER_SUPPORT""#)]), at: at)
                continue
            }
            var renewals = 1
            while paidFrom + periodMs <= endMs {
                let next = paidFrom + periodMs
                guard random.chance(behavior.renewal) else {
                    deliver(
                        event(
                            "EXPIRATION", period: "NORMAL", transaction: original, at: paidFrom, expires: next,
                            price: nil,
                            extra: [("expiration_reason", #""UNSUBSCRIBE""#)]), at: next)
                    break
                }
                renewals += 1
                deliver(
                    event(
                        "RENEWAL", period: "NORMAL", transaction: nextTransaction(), at: next, expires: next + periodMs,
                        price: price,
                        extra: [("is_trial_conversion", "false"), ("renewal_number", String(renewals))]), at: next)
                paidFrom = next
            }
        }
        // Noise that counts only in data quality: the testers' sandbox purchases and the dashboard's test events.
        let testers = Int((Double(purchases.count) * behavior.sandboxPerPurchase).rounded())
        for tester in 0..<testers {
            let at = scenario.startMs + Int64(random.uniform(0...Double(endMs - scenario.startMs - 60_000)))
            let user = JSONString.quoted(String(format: "demo_tester_%02d", tester % 7))
            deliver(
                [
                    ("type", #""INITIAL_PURCHASE""#), ("app_id", #""app_demo""#), ("app_user_id", user),
                    ("original_app_user_id", user), ("aliases", "[\(user)]"), ("product_id", #""pro_monthly""#),
                    ("period_type", #""NORMAL""#), ("purchased_at_ms", String(at)),
                    ("expiration_at_ms", String(at + 300_000)),
                    ("environment", #""SANDBOX""#), ("store", #""APP_STORE""#),
                    ("transaction_id", JSONString.quoted(nextTransaction())),
                    ("original_transaction_id", JSONString.quoted(String(format: "sandbox%06d", tester))),
                    ("presented_offering_id", #""onboarding_classic""#), ("currency", #""USD""#), ("price", "9.99"),
                ], at: at)
        }
        for index in 0..<behavior.testEvents {
            let at = scenario.startMs + Int64(index + 1) * Self.dayMs / 2
            deliver(
                [
                    ("type", #""TEST""#), ("app_id", #""app_demo""#),
                    ("app_user_id", JSONString.quoted("$RCAnonymousID:test\(index)")),
                ],
                at: at)
        }
        return out.enumerated().sorted { ($0.element.deliveredAtMs, $0.offset) < ($1.element.deliveredAtMs, $1.offset) }
            .map(\.element)
    }
}
