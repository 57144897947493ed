import PaywallCore
import PaywallLock

/// Counts of routed events.
final class LockedCounts: Sendable {
    private let state = Lock((onTime: 0, late: 0))
    func add(late: Bool) {
        state.withLock { counts in
            if late { counts.late += 1 } else { counts.onTime += 1 }
        }
    }
    var value: (onTime: Int, late: Int) { state.withLock { $0 } }
}

/// Forwards events to one sink and counts them.
struct RoutedSink: EventSink {
    let target: any EventSink
    let counts: LockedCounts
    let isLate: Bool

    func record(_ event: EventRecord) {
        counts.add(late: isLate)
        target.record(event)
    }
}
