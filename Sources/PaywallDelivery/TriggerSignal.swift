import PaywallLock

/// A one-slot wake-up signal: `fire()` wakes the waiter, or the next `wait()` returns at once.
package final class TriggerSignal: Sendable {
    private struct State {
        var fired = false
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }

    private let state = Lock(State())

    /// A signal that has not fired.
    package init() {}

    /// Wakes the waiter, or lets the next ``wait()`` return at once.
    package func fire() {
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

    /// Returns when ``fire()`` is called (or was, since the last wait), or when the task is cancelled.
    package func wait() async {
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
