import PaywallLock
import RevenueCatForwarder

/// The install's opt-out as the facade's loops see it: a forwarding pass (and, when the uploader of
/// SPEC §8 joins the facade, an upload pass) asks ``isOptedOut`` first and sends nothing while it is
/// set. Shared by ``PaywallAnalytics`` and the forwarder it wraps (``GatedForwarder``).
final class ConsentGate: Sendable {
    private let state: Lock<Bool>

    init(optedOut: Bool) { state = Lock(optedOut) }

    /// Whether the install is opted out now.
    var isOptedOut: Bool { state.withLock { $0 } }

    /// Sets the choice.
    func set(_ optedOut: Bool) { state.withLock { $0 = optedOut } }
}

/// A forwarder that runs no pass while the install is opted out (an empty completed pass instead),
/// so the loop, `flush()` and `suspend()` keep their code and send nothing.
struct GatedForwarder: ImpressionForwarding {
    let base: any ImpressionForwarding
    let gate: ConsentGate

    func forwardOnce() async throws -> ForwardingPass {
        if gate.isOptedOut { return .completed(ForwardingSummary()) }
        return try await base.forwardOnce()
    }
}
