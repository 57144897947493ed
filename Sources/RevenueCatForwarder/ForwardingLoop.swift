import Foundation
import PaywallDelivery

/// Runs a ``Forwarder`` (or any ``ImpressionForwarding``, such as ``ClosureForwarder``) periodically inside an embedding process, and early whenever
/// ``trigger()`` is called (for example right after the recorder flushes).
///
/// ```swift
/// let loop = ForwardingLoop(forwarder: forwarder, interval: .seconds(60), clock: ContinuousClock())
/// let task = Task { await loop.run() }
/// recorder.onFlush = { loop.trigger() }
/// // … on shutdown: task.cancel()
/// ```
public final class ForwardingLoop: Sendable {
    private let forwarder: any ImpressionForwarding
    private let schedule: PassSchedule
    private let onPass: @Sendable (Result<ForwardingPass, any Error>) -> Void

    /// Creates a loop.
    /// - Parameters:
    ///   - forwarder: the forwarder to run.
    ///   - interval: time between passes when nothing triggers one sooner.
    ///   - clock: the clock the interval is measured on (a manual clock in tests).
    ///   - onPass: called after every pass with its result (storage errors do not stop the loop).
    public init(
        forwarder: any ImpressionForwarding,
        interval: Duration,
        clock: any Clock<Duration>,
        onPass: @escaping @Sendable (Result<ForwardingPass, any Error>) -> Void = { _ in }
    ) {
        self.forwarder = forwarder
        schedule = PassSchedule(interval: interval, clock: clock)
        self.onPass = onPass
    }

    /// Asks for a pass as soon as possible; several triggers before the pass starts count once.
    public func trigger() { schedule.signal.fire() }

    /// The passes ``run()`` has ended (completed, busy or failed); ``forwardOnce()``'s are not
    /// counted. An app or a test can wait for the first one, which runs as soon as the loop starts.
    public var passesRun: Int { schedule.passesRun }

    /// Runs one pass now, outside the loop's schedule (``PaywallAnalytics``' `suspend()` does);
    /// it shares the outbox lease with the loop's passes, so the two never overlap.
    public func forwardOnce() async throws -> ForwardingPass { try await forwarder.forwardOnce() }

    /// Runs a pass now, then one per interval or trigger, until the task is cancelled.
    public func run() async {
        await schedule.run({ try await forwarder.forwardOnce() }, report: onPass)
    }
}
