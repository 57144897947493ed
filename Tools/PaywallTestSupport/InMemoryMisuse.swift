import PaywallCore
import PaywallLock

/// Collects what a tracker's `onMisuse` hook receives, for tests.
public final class InMemoryMisuse: Sendable {
    private let entries = Lock<[TrackerError]>([])

    /// Creates an empty log.
    public init() {}

    /// Records one misuse (pass this as the hook: `{ log.append($0) }`).
    public func append(_ error: TrackerError) { entries.withLock { $0.append(error) } }

    /// Everything recorded, in order.
    public var all: [TrackerError] { entries.withLock { $0 } }
}
