import Foundation
import PaywallCore
import PaywallLock
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

/// What ``PaywallAnalytics/suspend(budget:)`` did.
public struct SuspendReport: Sendable {
    /// Whether everything recorded before the call was committed to disk.
    public var committed: Bool
    /// The forwarding pass run within the budget: `nil` when forwarding is off, when the pass
    /// failed (said through diagnostics) or when the budget ran out first.
    public var forwarding: ForwardingPass?
    /// The upload pass to the collector run within the budget: `nil` when uploading is off, when
    /// the pass failed (said through diagnostics) or when the budget ran out first.
    public var upload: DeliveryPass?
    /// Whether the budget ran out before forwarding (and uploading) finished; what was not sent
    /// stays pending and goes out after ``PaywallAnalytics/resume()``.
    public var budgetExhausted: Bool
}

extension PaywallAnalytics {
    /// The app is going to the background: hides every visible presentation (their
    /// dwell timers stop; background time never counts as dwell), commits what is buffered,
    /// then forwards pending impressions and uploads pending events to the collector (both at once)
    /// — all within `budget`, so an app can call it inside
    /// `beginBackgroundTask`. Never throws: failures go to diagnostics and the report.
    ///
    /// - Parameter budget: the most time it takes, measured on the configured clock (default 5 s).
    ///   The commit is waited for first; forwarding and uploading get what is left and are cancelled
    ///   at the end.
    /// - Returns: what was committed and sent.
    @discardableResult
    public func suspend(budget: Duration = .seconds(5)) async -> SuspendReport {
        let clock = self.clock
        let elapsed = Self.stopwatch(clock)
        tracker.suspend()
        var report = SuspendReport(committed: false, forwarding: nil, upload: nil, budgetExhausted: false)
        do {
            try await commit()
            report.committed = true
        } catch {
            diagnostics("suspend: the commit failed, the events stay buffered: \(error)")
        }
        let remaining = budget - elapsed()
        guard remaining > .zero else {
            report.budgetExhausted = forwarding != nil || uploading != nil
            return report
        }
        // Everything that sends pending work goes here, in one budget: the forwarding pass to
        // RevenueCat and the upload pass to the collector, side by side.
        let forwarding = self.forwarding
        let uploading = self.uploading
        guard forwarding != nil || uploading != nil else { return report }
        let diagnostics = self.diagnostics
        @Sendable func forward() async -> ForwardingPass? {
            guard let forwarding else { return nil }
            do {
                return try await forwarding.forwardOnce()
            } catch {
                diagnostics("suspend: forwarding failed: \(error)")
                return nil
            }
        }
        @Sendable func upload() async -> DeliveryPass? {
            guard let uploading else { return nil }
            do {
                let pass = try await uploading.runOnce()
                for message in Self.uploadDiagnostics(.success(pass)) { diagnostics("suspend: \(message)") }
                return pass
            } catch {
                diagnostics("suspend: uploading failed: \(error)")
                return nil
            }
        }
        let passes = await Self.within(remaining, on: clock) { () async -> Passes in
            async let forwarded = forward()
            async let uploaded = upload()
            return Passes(forwarding: await forwarded, upload: await uploaded)
        }
        switch passes {
        case .none: report.budgetExhausted = true
        case .some(let result):
            report.forwarding = result.forwarding
            report.upload = result.upload
        }
        return report
    }

    /// The app is in the foreground again: what was visible before ``suspend(budget:)`` is
    /// visible again (its dwell starts over), and forwarding and uploading run at once.
    public func resume() {
        tracker.resume()
        forwarding?.trigger()
        uploading?.trigger()
    }

    /// Runs `work`, returning its result, or `nil` once `budget` has passed on `clock` (then the
    /// work's task is cancelled and left to finish on its own: the caller does not wait for it).
    static func within<T: Sendable>(
        _ budget: Duration, on clock: any Clock<Duration>,
        _ work: @escaping @Sendable () async -> T
    ) async -> T? {
        let slot = Lock<(continuation: CheckedContinuation<T?, Never>?, tasks: [Task<Void, Never>])>((nil, []))
        @Sendable func finish(_ value: T?) {
            let (continuation, tasks) = slot.withLock { state in
                let taken = (state.continuation, state.tasks)
                state.continuation = nil
                return taken
            }
            guard let continuation else { return }
            for task in tasks { task.cancel() }
            continuation.resume(returning: value)
        }
        return await withCheckedContinuation { continuation in
            slot.withLock { $0.continuation = continuation }
            let worker = Task { finish(await work()) }
            let timer = Task {
                try? await sleep(on: clock, for: budget)
                finish(nil)
            }
            slot.withLock { state in
                if state.continuation != nil {
                    state.tasks = [worker, timer]
                } else {
                    worker.cancel()
                    timer.cancel()
                }
            }
        }
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> Stopwatch {
        let start = clock.now
        return Stopwatch { start.duration(to: clock.now) }
    }

    /// What the passes run by ``suspend(budget:)`` returned.
    struct Passes: Sendable {
        var forwarding: ForwardingPass?
        var upload: DeliveryPass?
    }

    struct Stopwatch: Sendable {
        let elapsed: @Sendable () -> Duration
        func callAsFunction() -> Duration { elapsed() }
    }

    private static func sleep<C: Clock>(on clock: C, for duration: Duration) async throws where C.Duration == Duration {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
