import Foundation
import PaywallCore
import PaywallSimulation
import Testing

/// Per-placement tallies computed straight from the events (independent of the reports module).
struct Tally: Hashable {
    var presentations = 0
    var impressions = 0
    var bounces = 0
    var purchases = 0

    static func by(_ events: [EventRecord]) -> [String: Tally] {
        let byPresentation = Dictionary(grouping: events, by: \.properties.pwID)
        var tallies: [String: Tally] = [:]
        for (_, events) in byPresentation {
            let source = events[0].properties.source
            let shown = events.contains { $0.name == .paywallShown }
            let close = events.first { $0.name == .paywallClosed }
            tallies[source, default: Tally()].presentations += 1
            if shown { tallies[source]!.impressions += 1 }
            if !shown, close != nil { tallies[source]!.bounces += 1 }
            if shown, close?.properties.result == .purchased { tallies[source]!.purchases += 1 }
        }
        return tallies
    }

    var bounceRate: Double { Double(bounces) / Double(presentations) }
    var conversion: Double { Double(purchases) / Double(impressions) }
}

struct PopulationSimulatorTests {
    static func simulate(_ scenario: DemoScenario) -> (SimulationSummary, [EventRecord], [EventRecord]) {
        let onTime = InMemoryEventSink()
        let late = InMemoryEventSink()
        let summary = PopulationSimulator(scenario: scenario).run(onTime: onTime, late: late)
        return (summary, onTime.events, late.events)
    }

    @Test func theDemoPopulationIsLargeVariedAndValid() throws {
        let (summary, onTime, late) = Self.simulate(DemoScenario())
        let events = onTime + late
        #expect(summary.customers == 5_000)
        #expect(Set(events.map(\.userID)).count > 4_000)
        #expect(summary.onTimeEvents == onTime.count && summary.lateEvents == late.count)
        #expect(late.count > 0, "some events arrive late")
        #expect(summary.buyersOnALaterDay > 0, "some customers buy days after their first impression")
        let days = Set(events.map { $0.occurredAt / 86_400_000 })
        #expect(days.count == 30)
        let tallies = Tally.by(events)
        #expect(tallies.count >= 5)
        let onboarding = try #require(tallies["onboarding"])
        let gate = try #require(tallies["feature_gate"])
        #expect(
            tallies.values.allSatisfy { $0.conversion <= onboarding.conversion }, "onboarding converts best: \(tallies)"
        )
        #expect(tallies.values.allSatisfy { $0.bounceRate <= gate.bounceRate }, "feature gates bounce most: \(tallies)")
        let validator = EventValidator()
        #expect(events.allSatisfy { validator.validate($0).isEmpty })
        #expect(events.contains { $0.name == .paywallShown } && events.contains { $0.properties.via == .continueFree })
    }

    @Test func theSameSeedGivesTheSameNumbersAndAnotherSeedDiffers() {
        let scenario = DemoScenario(seed: 7, customers: 800)
        let (first, eventsA, lateA) = Self.simulate(scenario)
        let (second, eventsB, lateB) = Self.simulate(scenario)
        #expect(first == second)
        #expect(Tally.by(eventsA + lateA) == Tally.by(eventsB + lateB))
        #expect(eventsA.map(\.occurredAt) == eventsB.map(\.occurredAt))
        let (other, _, _) = Self.simulate(DemoScenario(seed: 8, customers: 800))
        #expect(other != first)
    }
}
