/// Something that runs one forwarding pass over an outbox: ``Forwarder`` (this project's HTTP
/// requests to RevenueCat) or ``ClosureForwarder`` (the app's own closure, e.g. RevenueCat's SDK).
/// ``ForwardingLoop`` runs either.
public protocol ImpressionForwarding: Sendable {
    /// Runs one pass; ``ForwardingPass/busy`` when another pass holds the outbox's lease.
    /// - Throws: the outbox's storage errors.
    func forwardOnce() async throws -> ForwardingPass
}

extension Forwarder: ImpressionForwarding {}
