import Foundation
import PaywallCore
import PaywallDelivery

/// Delivers pending impressions from an ``EventOutbox`` to RevenueCat, one lease-guarded
/// pass at a time, through the shared ``DeliveryEngine`` (RevenueCat is one adapter of it, the
/// collector the other). All backoff state lives in the outbox — each impression's attempts and
/// RevenueCat's destination-wide pause — so a later pass (in another process too) respects what an
/// earlier one learned.
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
    public init(outbox: any EventOutbox, transport: any HTTPTransport, configuration: ForwarderConfiguration, now: Now)
    {
        self.outbox = outbox
        self.transport = transport
        self.configuration = configuration
        self.now = now
    }

    /// Runs one pass: takes the lease, sends up to ``ForwarderConfiguration/maxBatches`` batches
    /// of due impressions, records every outcome in the outbox, gives the lease back. A pass that
    /// finds RevenueCat paused by an earlier failure (in this process or another) sends nothing.
    /// - Returns: ``ForwardingPass/busy`` when another pass holds the lease, else a summary.
    /// - Throws: the outbox's storage errors (the lease is released first when possible).
    public func forwardOnce() async throws -> ForwardingPass {
        let engine = DeliveryEngine(
            lease: outbox, pauses: outbox, transport: transport, now: now,
            leaseDuration: configuration.leaseDuration, leaseOwner: configuration.leaseOwner)
        let destination = RevenueCatDestination(outbox: outbox, configuration: configuration)
        switch try await engine.run(
            destination, maxBatches: configuration.maxBatches, batchLimit: configuration.batchSize)
        {
        case .busy:
            return .busy
        case .completed(let report):
            var summary = ForwardingSummary(report)
            let next = try outbox.nextAttemptTime()
            summary.nextAttemptAt = next.map { max($0, report.pausedUntil ?? $0) }
            return .completed(summary)
        }
    }

    /// Puts every dead letter back into the pending outbox (operator action); returns how many.
    public func requeueDeadLetters() throws -> Int {
        try outbox.requeueDeadLetters(now: now.milliseconds())
    }

    static func milliseconds(_ duration: Duration) -> Int64 { DeliveryEngine.milliseconds(duration) }
}
