import Foundation
import PaywallLock

/// Runs a ``Forwarder`` periodically inside an embedding process, and early whenever
/// ``trigger()`` is called (for example right after the recorder flushes).
///
/// ```swift
/// let loop = ForwardingLoop(forwarder: forwarder, interval: .seconds(60), clock: ContinuousClock())
/// let task = Task { await loop.run() }
/// recorder.onFlush = { loop.trigger() }
/// // … on shutdown: task.cancel()
/// ```
public final class ForwardingLoop: Sendable {
    private let forwarder: Forwarder
    private let interval: Duration
    private let clock: any Clock<Duration>
    private let onPass: @Sendable (Result<ForwardingPass, any Error>) -> Void
    private let signal = TriggerSignal()

    /// Creates a loop.
    /// - Parameters:
    ///   - forwarder: the forwarder to run.
    ///   - interval: time between passes when nothing triggers one sooner.
    ///   - clock: the clock the interval is measured on (a `ManualClock` in tests).
    ///   - onPass: called after every pass with its result (storage errors do not stop the loop).
    public init(
        forwarder: Forwarder,
        interval: Duration,
        clock: any Clock<Duration>,
        onPass: @escaping @Sendable (Result<ForwardingPass, any Error>) -> Void = { _ in }
    ) {
        self.forwarder = forwarder
        self.interval = interval
        self.clock = clock
        self.onPass = onPass
    }

    /// Asks for a pass as soon as possible; several triggers before the pass starts count once.
    public func trigger() { signal.fire() }

    /// Runs a pass now, then one per interval or trigger, until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            do { onPass(.success(try await forwarder.forwardOnce())) } catch { onPass(.failure(error)) }
            await waitForNextPass()
        }
    }

    private func waitForNextPass() async {
        let clock = self.clock
        let interval = self.interval
        let signal = self.signal
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Self.sleep(on: clock, for: interval) }
            group.addTask { await signal.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    private static func sleep<C: Clock>(on clock: C, for duration: Duration) async throws where C.Duration == Duration {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}

/// A one-slot wake-up signal: `fire()` wakes the waiter, or the next `wait()` returns at once.
final class TriggerSignal: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }

    private let state = Lock(State())

    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.fired = true
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || state.cancelled {
                        state.fired = false
                        state.cancelled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                let waiter = state.waiter
                state.waiter = nil
                if waiter == nil { state.cancelled = true }
                return waiter
            }
            waiter?.resume()
        }
    }
}
