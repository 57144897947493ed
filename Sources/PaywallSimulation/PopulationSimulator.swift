import Foundation
import PaywallCore

/// Simulates customers meeting paywalls, driving the library's real ``PresentationTracker`` on
/// virtual time, and emits the events into sinks: on-time events into one, events from offline
/// days (which reach the store late) into another.
///
/// ```swift
/// let late = InMemoryEventSink()
/// let summary = PopulationSimulator(scenario: DemoScenario(seed: 7)).run(onTime: recorder, late: late)
/// ```
public struct PopulationSimulator: Sendable {
    /// The scenario simulated.
    public let scenario: DemoScenario

    /// Creates a simulator.
    public init(scenario: DemoScenario) { self.scenario = scenario }

    static let dayMs: Int64 = 86_400_000

    /// Runs the whole population; deterministic for a given scenario.
    public func run(onTime: any EventSink, late: any EventSink) -> SimulationSummary {
        var random = SeededGenerator(seed: scenario.seed)
        var summary = SimulationSummary()
        let counting = CountingRouter(onTime: onTime, late: late)
        for index in 0..<scenario.customers {
            var customer = SimulatedCustomer(index: index, scenario: scenario, random: &random)
            customer.live(scenario: scenario, sink: counting, random: &random)
            summary.customers += 1
            summary.presentations += customer.presentations
            if let purchase = customer.purchase { summary.purchases.append(purchase) }
            if let boughtDay = customer.boughtOnDay {
                summary.buyers += 1
                if let first = customer.firstImpressionDay, boughtDay > first { summary.buyersOnALaterDay += 1 }
            }
        }
        summary.onTimeEvents = counting.onTimeCount
        summary.lateEvents = counting.lateCount
        return summary
    }
}

/// Routes each event to the on-time or the late sink, and counts them.
final class CountingRouter: Sendable {
    let onTime: any EventSink
    let late: any EventSink
    private let counts = LockedCounts()

    init(onTime: any EventSink, late: any EventSink) {
        self.onTime = onTime
        self.late = late
    }

    /// A sink that sends to the late sink when `isLate`, else to the on-time one.
    func sink(late isLate: Bool) -> any EventSink {
        RoutedSink(target: isLate ? late : onTime, counts: counts, isLate: isLate)
    }

    var onTimeCount: Int { counts.value.onTime }
    var lateCount: Int { counts.value.late }
}
