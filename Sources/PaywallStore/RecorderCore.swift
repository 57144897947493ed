import Dispatch
import PaywallCore
import PaywallLock
import PaywallSQLite

/// The recorder's shared state and its committer loop, run on a dedicated thread so blocking
/// SQLite work never occupies Swift's cooperative pool.
final class RecorderCore: Sendable {
    let state: Lock<RecorderState>
    let wakeup = DispatchSemaphore(value: 0)
    let store: EventStore
    let policy: FlushPolicy
    /// Events per buffer segment.
    let segmentSize: Int
    let diagnostics: @Sendable (RecorderDiagnostic) -> Void

    init(store: EventStore, policy: FlushPolicy, diagnostics: @escaping @Sendable (RecorderDiagnostic) -> Void) {
        let segmentSize = max(64, min(policy.batchSize, 8_192))
        var initial = RecorderState()
        initial.freeSegments = (0..<2).map { _ in
            var segment: [EventRecord] = []
            segment.reserveCapacity(segmentSize)
            return segment
        }
        self.state = Lock(initial)
        self.segmentSize = segmentSize
        self.store = store
        self.policy = policy
        self.diagnostics = diagnostics
    }

    /// The hot path: append under the lock, or count a drop at the bound. Never blocks on disk.
    func record(_ event: EventRecord) {
        let policy = self.policy
        let segmentSize = self.segmentSize
        let wake = state.withLock { state -> Bool in
            if state.optedOut {
                state.optedOutTotal += 1
                return false
            }
            guard !state.closing, policy.admits(held: state.held) else {
                state.droppedTotal += 1
                state.droppedUnsaved += 1
                state.droppingEpisode = true
                return false
            }
            state.append(event, segmentSize: segmentSize)
            state.accepted &+= 1
            guard !state.sizeRequested, state.buffered >= policy.batchSize else { return false }
            state.sizeRequested = true
            return true
        }
        if wake { wakeup.signal() }
    }

    /// Called by the interval timer.
    func tick() {
        state.withLock { $0.intervalTick = true }
        wakeup.signal()
    }

    /// Registers a waiter for everything accepted so far; resumes at once when nothing is outstanding.
    func waitForCommit(closing: Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enum Action {
                case resume
                case fail(StorageError)
                case wait
            }
            let action = state.withLock { state -> Action in
                if closing { state.closing = true }
                if state.finished {
                    return state.closeError.map(Action.fail) ?? .resume
                }
                if !closing && state.committed >= state.accepted && state.droppedUnsaved == 0 { return .resume }
                state.waiters.append(.init(target: state.accepted, continuation: continuation))
                return .wait
            }
            switch action {
            case .resume: continuation.resume()
            case .fail(let error): continuation.resume(throwing: error)
            case .wait: wakeup.signal()
            }
        }
    }

    /// Asks the committer to write what is left and exit (no waiter; used from `deinit`).
    func requestShutdown() {
        state.withLock { $0.closing = true }
        wakeup.signal()
    }
}
