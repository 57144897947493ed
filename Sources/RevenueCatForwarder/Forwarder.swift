import Foundation
import PaywallCore

/// Delivers pending impressions from an ``EventOutbox`` to RevenueCat, one lease-guarded
/// pass at a time. All backoff state lives in the outbox, so a later pass (in another
/// process too) respects what an earlier one learned.
///
/// ```swift
/// let forwarder = Forwarder(outbox: store, transport: URLSessionTransport(), configuration: config, now: .system)
/// switch try await forwarder.forwardOnce() {
/// case .busy: print("another forwarding pass is running")
/// case .completed(let summary): print(summary)
/// }
/// ```
public final class Forwarder: Sendable {
    let outbox: any EventOutbox
    let transport: any HTTPTransport
    /// The configuration this forwarder was made with.
    public let configuration: ForwarderConfiguration
    let now: Now

    /// Creates a forwarder.
    /// - Parameters:
    ///   - outbox: where pending impressions and their backoff state live.
    ///   - transport: how requests are sent (``URLSessionTransport`` in production).
    ///   - configuration: key, endpoint, limits and retry policy.
    ///   - now: the wall clock for lease and backoff times.
    public init(outbox: any EventOutbox, transport: any HTTPTransport, configuration: ForwarderConfiguration, now: Now) {
        self.outbox = outbox
        self.transport = transport
        self.configuration = configuration
        self.now = now
    }

    /// Runs one pass: takes the lease, sends up to ``ForwarderConfiguration/maxBatches`` batches
    /// of due impressions, records every outcome in the outbox, gives the lease back.
    /// - Returns: ``ForwardingPass/busy`` when another pass holds the lease, else a summary.
    /// - Throws: the outbox's storage errors (the lease is released first when possible).
    public func forwardOnce() async throws -> ForwardingPass {
        // A fresh owner per pass, so two passes of the same forwarder exclude each other too.
        let owner = "\(configuration.leaseOwner) \(UUID().uuidString)"
        guard try outbox.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) else { return .busy }
        var summary = ForwardingSummary()
        do {
            try await drain(owner: owner, into: &summary)
            summary.nextAttemptAt = try outbox.nextAttemptTime()
        } catch {
            try? outbox.releaseLease(owner: owner)
            throw error
        }
        try outbox.releaseLease(owner: owner)
        return .completed(summary)
    }

    /// Puts every dead letter back into the pending outbox (operator action); returns how many.
    public func requeueDeadLetters() throws -> Int {
        try outbox.requeueDeadLetters(now: now.milliseconds())
    }

    private var leaseMs: Int64 { Self.milliseconds(configuration.leaseDuration) }

    private func drain(owner: String, into summary: inout ForwardingSummary) async throws {
        for batchIndex in 0..<configuration.maxBatches {
            if Task.isCancelled { summary.stop = .cancelled; return }
            if batchIndex > 0,
               try !outbox.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) {
                summary.stop = .leaseLost
                return
            }
            let items = try outbox.due(now: now.milliseconds(), limit: configuration.batchSize)
            if items.isEmpty { summary.stop = .nothingDue; return }
            let previousAttempts = items.map(\.attempts).max() ?? 0
            let decision = await send(items.map(\.event), previousAttempts: previousAttempts, summary: &summary)
            let ids = items.map(\.event.id)
            let at = now.milliseconds()
            switch decision {
            case .delivered:
                try outbox.markDelivered(ids, at: at)
                summary.delivered += ids.count
            case .retry(let after):
                let notBefore = at + Self.milliseconds(after)
                for (attempts, group) in Dictionary(grouping: items, by: \.attempts) {
                    try outbox.scheduleRetry(group.map(\.event.id), attempts: attempts + 1, notBefore: notBefore)
                }
                summary.willRetry += ids.count
                summary.revenueCatUnavailable = true
                summary.stop = .revenueCatUnavailable
                return
            case .deadLetter(let reason):
                try outbox.deadLetter(ids, status: summary.lastStatus ?? 0, reason: reason, at: at)
                summary.deadLettered += ids.count
                summary.deadLetteredByStatus[summary.lastStatus ?? 0, default: 0] += ids.count
            }
        }
        summary.stop = .batchLimit
    }

    /// Sends one batch and turns the result into a decision, noting what happened in `summary`.
    private func send(_ events: [EventRecord], previousAttempts: Int, summary: inout ForwardingSummary) async -> RetryDecision {
        let request = configuration.request(for: events, retryCount: previousAttempts)
        let policy = configuration.retryPolicy
        let attempt = previousAttempts + 1
        summary.requests += 1
        do {
            let response = try await transport.send(request)
            summary.lastStatus = response.status
            if (200..<300).contains(response.status) { return .delivered }
            let retryAfter = RetryPolicy.retryAfter(header: response.headers["retry-after"], now: now.milliseconds())
            let decision = policy.decide(status: response.status, retryAfter: retryAfter, attempt: attempt, body: redacted(response.body))
            summary.lastFailure = (300..<400).contains(response.status)
                ? TransportError.redirected(status: response.status).description
                : "RevenueCat answered HTTP \(response.status)"
            return decision
        } catch {
            let transportError = error as? TransportError ?? .other(detail: String(describing: type(of: error)))
            summary.lastStatus = nil
            summary.lastFailure = transportError.description
            return policy.decide(transportError: transportError, attempt: attempt)
        }
    }

    /// `body` with the API key, and every piece of 7 bytes or more of it, replaced in every form
    /// ``KeyRedaction`` knows (any case, escaped, percent-encoded, base64, hex), so an echoing
    /// server cannot smuggle the key into a dead-letter reason.
    private func redacted(_ body: Data) -> Data {
        KeyRedaction.redact(body, key: configuration.apiKey.value)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        let (product, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return components.seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return product + components.attoseconds / 1_000_000_000_000_000
    }
}
