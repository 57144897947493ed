import Foundation

/// What the collector's `POST /v1/revenuecat/webhooks` hands its bodies to: the store of RevenueCat
/// subscription events. The collector calls it on its writer thread only (never two calls at once),
/// with the bodies of the webhook requests that arrived together, and answers each request 200 once
/// the call returned and the store's log is flushed.
public protocol SubscriptionIngest: Sendable {
    /// Stores `bodies` (each one whole webhook body as received) in one transaction and says what
    /// became of each, in order; throws when nothing of them could be stored.
    func ingest(_ bodies: [Data], receivedAtMs: Int64) throws -> [WebhookOutcome]
}

/// What became of one webhook body; every one is answered 200 (RevenueCat only retries a refusal).
public enum WebhookOutcome: Sendable, Hashable {
    /// A new event, stored.
    case stored
    /// An event whose `event.id` is stored already (a repeated delivery): stored once.
    case duplicate
    /// A body that can never be an event, kept with the reasons why.
    case quarantined(reasons: [String])
    /// An event of a forgotten customer: refused and counted, nothing of it kept.
    case suppressed

    /// The outcome's name, as answers and metrics show it.
    public var name: String {
        switch self {
        case .stored: "stored"
        case .duplicate: "duplicate"
        case .quarantined: "quarantined"
        case .suppressed: "suppressed"
        }
    }
}
