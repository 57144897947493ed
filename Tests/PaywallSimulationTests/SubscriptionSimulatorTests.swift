import Foundation
import PaywallCore
import PaywallSimulation
import Testing

/// The subscription side of the demo, checked straight from the generated webhook bodies (parsed
/// here with Foundation, independently of the module that stores them).
@Suite struct SubscriptionSimulatorTests {
    static let scenario = DemoScenario(seed: 42, customers: 2_000, days: 30)

    /// The population's events and purchases, and the webhooks for them.
    static func simulate(_ scenario: DemoScenario) -> (
        events: [EventRecord], purchases: [SimulatedPurchase], webhooks: [SimulatedWebhook]
    ) {
        let onTime = InMemoryEventSink()
        let late = InMemoryEventSink()
        let summary = PopulationSimulator(scenario: scenario).run(onTime: onTime, late: late)
        return (
            onTime.events + late.events, summary.purchases,
            SubscriptionSimulator(scenario: scenario).webhooks(for: summary.purchases)
        )
    }

    static func event(_ webhook: SimulatedWebhook) throws -> [String: Any] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(webhook.body.utf8)) as? [String: Any])
        #expect(root["api_version"] as? String == "1.0")
        return try #require(root["event"] as? [String: Any])
    }

    @Test func theSameSeedGivesTheSameWebhooksAndAnotherSeedOthers() {
        let first = Self.simulate(Self.scenario)
        let again = Self.simulate(Self.scenario)
        #expect(first.webhooks == again.webhooks)
        #expect(!first.webhooks.isEmpty)
        var other = Self.scenario
        other.seed = 43
        #expect(Self.simulate(other).webhooks != first.webhooks)
    }

    @Test func theStreamHoldsTrialsConversionsLapsesRenewalsRefundsSandboxTestsAndRepeats() throws {
        let (_, purchases, webhooks) = Self.simulate(Self.scenario)
        let endMs = Self.scenario.startMs + Int64(Self.scenario.days) * 86_400_000
        var types: [String: Int] = [:]
        var bodies: [String: String] = [:]
        var repeats = 0
        var sandbox = 0
        for webhook in webhooks {
            let event = try Self.event(webhook)
            #expect(event["id"] as? String == webhook.eventID)
            if let earlier = bodies[webhook.eventID] {
                #expect(earlier == webhook.body, "a repeated delivery carries the same body")
                repeats += 1
                continue
            }
            bodies[webhook.eventID] = webhook.body
            let type = try #require(event["type"] as? String)
            types[type, default: 0] += 1
            #expect(try #require(event["event_timestamp_ms"] as? Int64) <= endMs)
            if event["environment"] as? String == "SANDBOX" || type == "TEST" { sandbox += 1 }
            if type == "INITIAL_PURCHASE", event["period_type"] as? String == "TRIAL" {
                #expect(event["price"] as? Double == 0)
                #expect(event["presented_offering_id"] as? String == "onboarding_trial")
            }
            if type == "RENEWAL", event["is_trial_conversion"] as? Bool == true {
                #expect(event["presented_offering_id"] as? String == "onboarding_trial")
            }
            if type == "CANCELLATION" { #expect(try #require(event["price"] as? Double) < 0) }
        }
        #expect(zip(webhooks, webhooks.dropFirst()).allSatisfy { $0.deliveredAtMs <= $1.deliveredAtMs })
        #expect(types["INITIAL_PURCHASE", default: 0] >= purchases.count - types["NON_RENEWING_PURCHASE", default: 0])
        for type in ["RENEWAL", "EXPIRATION", "CANCELLATION", "NON_RENEWING_PURCHASE"] {
            #expect(types[type, default: 0] > 0, "no \(type) event")
        }
        #expect(types["TEST"] == 2)
        #expect(sandbox > 2)
        #expect(repeats > 0)
    }

    @Test func theTrialOfferingConvertsMoreButEarnsLessPerCustomerThanThePaidOne() throws {
        let (events, _, webhooks) = Self.simulate(Self.scenario)
        // Customers who saw each onboarding offering (an impression), from the paywall events.
        var saw: [String: Set<String>] = [:]
        for event in events where event.name == .paywallShown && event.properties.source == "onboarding" {
            saw[event.properties.offeringID ?? "", default: []].insert(event.userID)
        }
        // Customers who started, and money (production events, each id once), per offering, from the bodies.
        var started: [String: Set<String>] = [:]
        var money: [String: Decimal] = [:]
        var seen = Set<String>()
        for webhook in webhooks where seen.insert(webhook.eventID).inserted {
            let event = try Self.event(webhook)
            guard event["environment"] as? String == "PRODUCTION",
                let offering = event["presented_offering_id"] as? String,
                let type = event["type"] as? String
            else { continue }
            if type == "INITIAL_PURCHASE" || type == "NON_RENEWING_PURCHASE" {
                started[offering, default: []].insert(try #require(event["app_user_id"] as? String))
            }
            let price = (event["price"] as? NSNumber).flatMap { Decimal(string: $0.stringValue) } ?? 0
            if ["INITIAL_PURCHASE", "RENEWAL", "NON_RENEWING_PURCHASE"].contains(type)
                || (type == "CANCELLATION" && price < 0)
            {
                money[offering, default: 0] += price
            }
        }
        func conversion(_ offering: String) -> Double {
            Double(started[offering, default: []].count) / Double(max(1, saw[offering, default: []].count))
        }
        func perCustomer(_ offering: String) -> Double {
            NSDecimalNumber(decimal: money[offering, default: 0]).doubleValue
                / Double(max(1, saw[offering, default: []].count))
        }
        #expect(saw["onboarding_trial", default: []].count > 500 && saw["onboarding_classic", default: []].count > 500)
        #expect(conversion("onboarding_trial") > conversion("onboarding_classic") * 1.2)
        #expect(perCustomer("onboarding_trial") * 2 < perCustomer("onboarding_classic"))
    }

    @Test func addingTheSubscriptionSideLeavesThePaywallSideUnchanged() {
        // The webhooks draw from their own generator: the paywall events are those of the population alone.
        let onTime = InMemoryEventSink()
        let summary = PopulationSimulator(scenario: Self.scenario).run(onTime: onTime, late: InMemoryEventSink())
        _ = SubscriptionSimulator(scenario: Self.scenario).webhooks(for: summary.purchases)
        let again = InMemoryEventSink()
        let second = PopulationSimulator(scenario: Self.scenario).run(onTime: again, late: InMemoryEventSink())
        #expect(summary == second)
        // Event ids are random; what happened, when and to whom is not.
        let key = { (event: EventRecord) in "\(event.name.rawValue)|\(event.occurredAt)|\(event.userID)" }
        #expect(onTime.events.map(key) == again.events.map(key), "the paywall events differ between two runs")
        #expect(summary.purchases.count == summary.buyers)
    }
}
