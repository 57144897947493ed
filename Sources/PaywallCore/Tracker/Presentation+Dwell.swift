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
            journal(state, at: elapsed)
        }
    }

    /// Starts a period of real visibility at `elapsed` (and the dwell timer in automatic mode).
    func startVisibility(_ state: inout State, at elapsed: Duration) {
        guard !state.closed, state.visibleSince == nil else { return }
        state.visibleSince = elapsed
        state.visibleSinceMs = tracker.now.milliseconds()
        state.firstAppearedAt = state.firstAppearedAt ?? elapsed
        state.visibilityEpoch += 1
        if let interval = tracker.checkpointInterval, tracker.journal != nil {
            state.checkpointTimer = startCheckpointTimer(from: elapsed, every: interval, epoch: state.visibilityEpoch)
        }
        journal(state, at: elapsed)
        guard case .automatic(let dwell) = context.mode, !state.impressionEmitted else { return }
        state.dwellTimer = startDwellTimer(deadline: elapsed + dwell, epoch: state.visibilityEpoch)
    }

    /// Ends the current period of real visibility at `elapsed`, emitting the impression first if
    /// the dwell time was reached within it.
    func endVisibility(_ state: inout State, at elapsed: Duration, journaling: Bool = true) {
        guard let since = state.visibleSince else { return }
        emitImpressionIfDwellReached(&state, at: elapsed)
        state.visibleBefore += elapsed - since
        state.visibleSince = nil
        state.dwellTimer?.cancel()
        state.dwellTimer = nil
        state.checkpointTimer?.cancel()
        state.checkpointTimer = nil
        if journaling { journal(state, at: elapsed) }
    }

    /// The presentation's state for the journal, as of `elapsed`.
    func snapshot(_ state: State, at elapsed: Duration, close: EventRecord? = nil) -> PresentationSnapshot {
        let visible = state.visibleBefore + (state.visibleSince.map { elapsed - $0 } ?? .zero)
        return PresentationSnapshot(
            pwID: pwID, source: context.source, offeringID: context.offeringID, placementID: context.placementID,
            userID: context.userID, sessionID: context.sessionID, visibleSeconds: Self.seconds(visible),
            checkpointAt: tracker.now.milliseconds(), lastProduct: state.lastSelectedProduct,
            impression: state.impression, close: close)
    }

    /// Saves the state in the tracker's journal, if it has one.
    func journal(_ state: State, at elapsed: Duration, close: EventRecord? = nil) {
        guard let journal = tracker.journal else { return }
        journal.save(snapshot(state, at: elapsed, close: close))
    }

    /// A checkpoint: the impression if its dwell time is reached, then the state in the journal.
    func checkpoint(at elapsed: Duration) {
        state.withLock { state in
            guard !state.closed else { return }
            emitImpressionIfDwellReached(&state, at: elapsed)
            journal(state, at: elapsed)
        }
    }

    /// Every `interval` of the same visibility period, a ``checkpoint(at:)``.
    func startCheckpointTimer(from start: Duration, every interval: Duration, epoch: Int) -> Task<Void, Never> {
        let clock = tracker.clock
        return Task { [weak self] in
            var next = start + interval
            while true {
                do { try await clock.sleepUntil(next) } catch { return }
                guard let self else { return }
                let current = self.state.withLock { !$0.closed && $0.visibilityEpoch == epoch }
                guard current else { return }
                self.checkpoint(at: clock.elapsed())
                next += interval
            }
        }
    }

    /// The tracker was suspended: the paywall leaves the screen as far as dwell is concerned,
    /// but the app's own `appeared()` stays remembered for ``resumed(at:)``.
    func suspended(at elapsed: Duration) {
        state.withLock { state in endVisibility(&state, at: elapsed) }
    }

    /// The tracker resumed: what the app last said was visible becomes visible again.
    func resumed(at elapsed: Duration) {
        state.withLock { state in
            guard state.appVisible else { return }
            startVisibility(&state, at: elapsed)
        }
    }

    /// Emits the impression if the paywall has been visible for the dwell time by `elapsed`,
    /// dated when the dwell time was reached (the wall time of the appearance plus the dwell,
    /// so a timer task that runs late cannot move it). Called on every transition, so the
    /// impression never depends on the timer task having run.
    func emitImpressionIfDwellReached(_ state: inout State, at elapsed: Duration) {
        guard case .automatic(let dwell) = context.mode, !state.impressionEmitted,
            let since = state.visibleSince, elapsed - since >= dwell
        else { return }
        emitImpression(&state, occurredAt: state.visibleSinceMs + Self.milliseconds(dwell))
    }

    func emitImpression(_ state: inout State, occurredAt: Int64) {
        state.impressionEmitted = true
        let event = PaywallShown(
            pwID: pwID, source: context.source, offeringID: context.offeringID,
            placementID: context.placementID)
        let record = tracker.record(event, context: context, occurredAt: occurredAt)
        state.impression = record
        // Journaled first: a kill between the two still leaves the impression to the next start.
        journal(state, at: tracker.clock.elapsed())
        tracker.sink.record(record)
    }

    /// Sleeps until the dwell deadline, then emits the impression if the same visibility period
    /// is still going on.
    func startDwellTimer(deadline: Duration, epoch: Int) -> Task<Void, Never> {
        let clock = tracker.clock
        return Task { [weak self] in
            do { try await clock.sleepUntil(deadline) } catch { return }
            guard let self else { return }
            self.state.withLock { state in
                guard !state.closed, state.visibilityEpoch == epoch else { return }
                self.emitImpressionIfDwellReached(&state, at: clock.elapsed())
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
