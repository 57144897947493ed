import Foundation
import PaywallCollector
import PaywallSubscriptions

/// The collector's webhook route stores into PaywallSubscriptions' ``SubscriptionEventStore``,
/// on the store's own connection (the collector calls it on its writer thread only).
struct SubscriptionWebhookStore: SubscriptionIngest {
    let store: SubscriptionEventStore

    func ingest(_ bodies: [Data], receivedAtMs: Int64) throws -> [WebhookOutcome] {
        try store.ingest(bodies, receivedAtMs: receivedAtMs).map { outcome in
            switch outcome {
            case .stored: .stored
            case .duplicate: .duplicate
            case .quarantined(let reasons): .quarantined(reasons: reasons)
            case .suppressed: .suppressed
            }
        }
    }
}
