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
    /// How many passes ``run(_:report:)`` has ended.
    private let passes = Lock(0)

    /// A schedule of one pass per `interval` on `clock`.
    package init(interval: Duration, clock: any Clock<Duration>) {
        self.interval = interval
        self.clock = clock
    }

    /// The passes the loop has ended, whatever their result.
    package var passesRun: Int { passes.withLock { $0 } }

    /// Runs `pass` now, then once per interval or signal, until the task is cancelled (a loop's
    /// `run()`). Each pass is counted (``passesRun``) before its result goes to `report`, so whoever
    /// sees the report sees the count; a thrown error is reported and the loop goes on.
    package func run<Pass>(_ pass: () async throws -> Pass, report: (Result<Pass, any Error>) -> Void) async {
        while !Task.isCancelled {
            let result: Result<Pass, any Error>
            do { result = .success(try await pass()) } catch { result = .failure(error) }
            passes.withLock { $0 += 1 }
            report(result)
            await waitForNextPass()
        }
    }

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
