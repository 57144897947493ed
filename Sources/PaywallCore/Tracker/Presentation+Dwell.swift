import Foundation
import PaywallLock

extension Presentation {
    func ensureOpen(_ state: State, _ attempted: String) throws(TrackerError) {
        if state.closed { throw .alreadyClosed(pwID: pwID, attempted: attempted) }
    }

    /// Runs an action that needs the paywall on screen and emits the event it returns.
    func visibleAction(_ name: String, _ action: (inout State, Duration) -> some CatalogEvent) throws(TrackerError) {
        let elapsed = tracker.clock.elapsed()
        try state.withLock { state throws(TrackerError) in
            try ensureOpen(state, name)
            guard state.visibleSince != nil else { throw .notVisible(pwID: pwID, attempted: name) }
            emitImpressionIfDwellReached(&state, at: elapsed)
            let event = action(&state, elapsed)
            tracker.emit(event, context: context, occurredAt: tracker.now.milliseconds())
        }
    }

    /// Emits the impression if the paywall has been visible for the dwell time by `elapsed`,
    /// dated when the dwell time was reached. Called on every transition, so the impression
    /// never depends on the timer task having run.
    func emitImpressionIfDwellReached(_ state: inout State, at elapsed: Duration) {
        guard case .automatic(let dwell) = tracker.mode, !state.impressionEmitted,
              let since = state.visibleSince, elapsed - since >= dwell else { return }
        let overdue = elapsed - (since + dwell)
        emitImpression(&state, occurredAt: tracker.now.milliseconds() - Self.milliseconds(overdue))
    }

    func emitImpression(_ state: inout State, occurredAt: Int64) {
        state.impressionEmitted = true
        let event = PaywallShown(pwID: pwID, source: context.source, offeringID: context.offeringID,
                                 placementID: context.placementID)
        tracker.emit(event, context: context, occurredAt: occurredAt)
    }

    /// Sleeps until the dwell deadline, then emits the impression if the same visibility period
    /// is still going on.
    func startDwellTimer(deadline: Duration, epoch: Int) -> Task<Void, Never> {
        let clock = tracker.clock
        return Task { [weak self] in
            do { try await clock.sleepUntil(deadline) } catch { return }
            guard let self else { return }
            let elapsed = clock.elapsed()
            self.state.withLock { state in
                guard !state.closed, state.visibilityEpoch == epoch else { return }
                self.emitImpressionIfDwellReached(&state, at: elapsed)
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
