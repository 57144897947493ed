import Foundation
import PaywallCore
import PaywallDelivery

/// Delivers pending impressions by calling an app-supplied async closure, one impression at a
/// time — typically RevenueCat's own SDK, so this package links no RevenueCat code:
///
/// ```swift
/// let forwarder = ClosureForwarder(outbox: SQLiteOutbox(store: store), now: .system) { impression in
///     Purchases.shared.trackCustomPaywallImpression(
///         CustomPaywallImpressionParams(paywallId: impression.paywallID, offeringId: impression.offeringID))
/// }
/// ```
///
/// The outbox still owns delivery, exactly as for ``Forwarder``: one lease-guarded pass at a
/// time per database; an impression counts as delivered when the closure returns (marked in
/// the outbox right then); a throw keeps it pending with the ``RetryPolicy``'s backoff and ends
/// the pass (a throw because the pass's task was cancelled counts no attempt). Nothing is ever
/// dead-lettered: a throw is always retried. Delivery is
/// at-least-once: a crash between the closure's return and the mark calls it again.
public final class ClosureForwarder: Sendable {
    /// The app's delivery closure.
    public typealias Handler = @Sendable (CustomPaywallImpression) async throws -> Void

    let outbox: any EventOutbox
    let handler: Handler
    let retryPolicy: RetryPolicy
    let maxPerPass: Int
    let leaseDuration: Duration
    let leaseOwner: String
    let now: Now

    /// Creates a forwarder.
    /// - Parameters:
    ///   - outbox: where pending impressions and their backoff state live.
    ///   - retryPolicy: the backoff after a throw (its HTTP rules do not apply here).
    ///   - maxPerPass: impressions one pass hands over at most (default 500).
    ///   - leaseDuration: how long a pass's lease lasts; renewed before every impression.
    ///   - leaseOwner: names the lease holder (each pass appends a fresh UUID).
    ///   - now: the wall clock for lease and backoff times.
    ///   - handler: delivers one impression; return when it is handed over, throw to retry later.
    public init(
        outbox: any EventOutbox, retryPolicy: RetryPolicy = RetryPolicy(), maxPerPass: Int = 500,
        leaseDuration: Duration = .seconds(120), leaseOwner: String = "closure-forwarder",
        now: Now, handler: @escaping Handler
    ) {
        self.outbox = outbox
        self.handler = handler
        self.retryPolicy = retryPolicy
        self.maxPerPass = max(maxPerPass, 1)
        self.leaseDuration = leaseDuration
        self.leaseOwner = leaseOwner
        self.now = now
    }
}

extension ClosureForwarder: ImpressionForwarding {
    /// Runs one pass: takes the lease, hands due impressions to the closure in `occurred_at`
    /// order until none is due, one throws, ``maxPerPass`` is reached or the task is cancelled,
    /// and records every outcome in the outbox. `requests` in the summary counts closure calls.
    /// - Throws: the outbox's storage errors (the lease is released first when possible).
    public func forwardOnce() async throws -> ForwardingPass {
        let owner = "\(leaseOwner) \(UUID().uuidString)"
        let leaseMs = Forwarder.milliseconds(leaseDuration)
        guard try outbox.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) else { return .busy }
        var summary = ForwardingSummary()
        do {
            try await drain(owner: owner, leaseMs: leaseMs, into: &summary)
            summary.nextAttemptAt = try outbox.nextAttemptTime()
        } catch {
            try? outbox.releaseLease(owner: owner)
            throw error
        }
        try outbox.releaseLease(owner: owner)
        return .completed(summary)
    }

    private func drain(owner: String, leaseMs: Int64, into summary: inout ForwardingSummary) async throws {
        var handed = 0
        while handed < maxPerPass {
            let items = try outbox.due(now: now.milliseconds(), limit: min(50, maxPerPass - handed))
            if items.isEmpty {
                summary.stop = .nothingDue
                return
            }
            for item in items {
                if Task.isCancelled {
                    summary.stop = .cancelled
                    return
                }
                guard try outbox.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) else {
                    summary.stop = .leaseLost
                    return
                }
                summary.requests += 1
                handed += 1
                do {
                    try await handler(CustomPaywallImpression(record: item.event))
                } catch {
                    // The pass was stopped (suspend's budget ran out): not a failure of the closure,
                    // so no attempt is counted and the impression is due again at once.
                    if Task.isCancelled {
                        summary.stop = .cancelled
                        return
                    }
                    let attempt = item.attempts + 1
                    let notBefore = now.milliseconds() + Forwarder.milliseconds(retryPolicy.backoff(attempt: attempt))
                    try outbox.scheduleRetry([item.event.id], attempts: attempt, notBefore: notBefore)
                    summary.willRetry += 1
                    summary.revenueCatUnavailable = true
                    // The error's type only: its text is the app's and may carry a user id.
                    summary.lastFailure = "the impression closure threw \(type(of: error))"
                    summary.stop = .revenueCatUnavailable
                    return
                }
                try outbox.markDelivered([item.event.id], at: now.milliseconds())
                summary.delivered += 1
            }
        }
        summary.stop = .batchLimit
    }
}
