import Foundation
import PaywallCore
import PaywallDelivery
import PaywallWire

/// RevenueCat's events endpoint as a ``DeliveryDestination``: due impressions from the outbox in
/// batches of up to 50, RevenueCat's events wire format (``ImpressionWireFormat``), and the retry rules of
/// ``RetryPolicy`` (2xx delivered, other 4xx but 404 and 429 dead-lettered, the rest retried).
/// Each impression keeps its own attempt count (`X-Retry-Count`); the pause is the engine's.
struct RevenueCatDestination: DeliveryDestination {
    let outbox: any EventOutbox
    let configuration: ForwarderConfiguration

    var pauseKey: String { DeliveryDestinationName.revenueCat }
    var displayName: String { "RevenueCat" }

    func nextBatch(limit: Int, now: Int64) throws -> [OutboxItem]? {
        let items = try outbox.due(now: now, limit: min(limit, configuration.batchSize))
        return items.isEmpty ? nil : items
    }

    func count(of batch: [OutboxItem]) -> Int { batch.count }

    func attempt(of batch: [OutboxItem], failures: Int) -> Int { (batch.map(\.attempts).max() ?? 0) + 1 }

    func request(for batch: [OutboxItem], attempt: Int) throws -> HTTPRequest {
        configuration.request(for: batch.map(\.event), retryCount: attempt - 1)
    }

    func verdict(for response: HTTPResponse, of batch: [OutboxItem], attempt: Int, now: Int64) -> DeliveryVerdict {
        let retryAfter = RetryPolicy.retryAfter(header: response.headers["retry-after"], now: now)
        // The API key, and every piece of 7 bytes or more of it, is replaced in every form
        // ``KeyRedaction`` knows, so an echoing server cannot smuggle it into a dead-letter reason.
        let body = KeyRedaction.redact(response.body, key: configuration.apiKey.value)
        switch configuration.retryPolicy.decide(
            status: response.status, retryAfter: retryAfter, attempt: attempt, body: body)
        {
        case .delivered:
            return .delivered(EventCounts(accepted: batch.count))
        case .retry(let after):
            let reason =
                (300..<400).contains(response.status)
                ? TransportError.redirected(status: response.status).description
                : "RevenueCat answered HTTP \(response.status)"
            return .retry(after: after, reason: reason)
        case .deadLetter(let reason):
            return .refused(status: response.status, reason: reason)
        }
    }

    func verdict(for error: TransportError, of batch: [OutboxItem], attempt: Int) -> DeliveryVerdict {
        let reason = Self.reason(for: error, url: configuration.eventsURL)
        switch configuration.retryPolicy.decide(transportError: error, attempt: attempt) {
        case .retry(let after): return .retry(after: after, reason: reason)
        case .delivered, .deadLetter:
            return .retry(after: configuration.retryPolicy.backoff(attempt: attempt), reason: reason)
        }
    }

    /// A transport failure in words, naming the host and port tried, and what happens to the impressions.
    static func reason(for error: TransportError, url: URL) -> String {
        let what = error.explained(destination: "RevenueCat", url: url)
        switch error {
        case .cannotConnect: return what + "; check the endpoint and network, the impressions stay pending"
        case .redirected:
            return what + " (the API key goes only to the configured endpoint); check --endpoint, the impressions "
                + "stay pending and are retried"
        default: return what + "; the impressions stay pending and are retried"
        }
    }

    func record(_ verdict: DeliveryVerdict, of batch: [OutboxItem], attempt: Int, at: Int64) throws {
        let ids = batch.map(\.event.id)
        switch verdict {
        case .delivered:
            try outbox.markDelivered(ids, at: at)
        case .retry(let after, _):
            let notBefore = at + DeliveryEngine.milliseconds(after)
            for (attempts, group) in Dictionary(grouping: batch, by: \.attempts) {
                try outbox.scheduleRetry(group.map(\.event.id), attempts: attempts + 1, notBefore: notBefore)
            }
        case .refused(let status, let reason):
            try outbox.deadLetter(ids, status: status, reason: reason, at: at)
        case .shrink:
            break
        }
    }
}
