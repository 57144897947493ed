import PaywallLock

/// When the next pass of a loop (``DeliveryLoop``, RevenueCatForwarder's `ForwardingLoop`) starts:
/// after `interval` on `clock`, or as soon as `signal` fires, whichever comes first.
package struct PassSchedule: Sendable {
    /// The time between passes when nothing fires the signal.
    package let interval: Duration
    /// The clock `interval` is measured on.
    package let clock: any Clock<Duration>
    /// Fired to start the next pass at once (a loop's `trigger()`).
    package let signal = TriggerSignal()
    /// How many passes the loop has ended (``countPass()``).
    private let passes = Lock(0)

    /// A schedule of one pass per `interval` on `clock`.
    package init(interval: Duration, clock: any Clock<Duration>) {
        self.interval = interval
        self.clock = clock
    }

    /// The passes the loop has ended, whatever their result.
    package var passesRun: Int { passes.withLock { $0 } }

    /// Counts a pass the loop has ended; called before the loop reports the pass, so whoever sees
    /// the report sees the count.
    package func countPass() { passes.withLock { $0 += 1 } }

    /// Returns after `interval`, or as soon as `signal` fires (or the task is cancelled).
    package func waitForNextPass() async {
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
