/// What ``SubscriptionEventStore/ingest(_:receivedAtMs:origin:lines:)`` did with one webhook body.
public enum SubscriptionIngestOutcome: Sendable, Equatable {
    /// A new event: its row and customer keys are committed.
    case stored
    /// An event with this `event.id` was already stored (a redelivery): nothing changed.
    case duplicate
    /// The body can never be a RevenueCat event; it is kept in the quarantine with these reasons
    /// (once per exact body: the same bytes again add nothing).
    case quarantined(reasons: [String])
    /// The body names a forgotten customer: not stored, counted in `suppressed_events`.
    case suppressed
}
