import PaywallCore
import PaywallLock

/// A wall clock that moves only when a test says so, shared by every object made from it.
final class SteppedTime: Sendable {
    private let value: Lock<Int64>

    init(_ start: Int64 = 1_764_500_000_000) { value = Lock(start) }

    var now: Now { Now { [value] in value.withLock { $0 } } }
    var current: Int64 { value.withLock { $0 } }

    func advance(ms: Int64) { value.withLock { $0 += ms } }
}
