import PaywallLock

/// An ``EventSink`` that keeps events in memory, in arrival order: for tests and previews.
public final class InMemoryEventSink: EventSink {
    private let storage = Lock<[EventRecord]>([])

    /// Creates an empty sink.
    public init() {}

    /// Appends the event.
    public func record(_ event: EventRecord) {
        storage.withLock { $0.append(event) }
    }

    /// Every event received so far, in order.
    public var events: [EventRecord] { storage.withLock { $0 } }
}
