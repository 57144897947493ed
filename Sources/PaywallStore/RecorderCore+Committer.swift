import Dispatch
import Synchronization
import PaywallCore
import PaywallSQLite

extension RecorderCore {
    /// The committer loop: wait for a trigger, ask the policy, commit one transaction.
    func runCommitter() {
        var pending: [EventRecord] = []
        pending.reserveCapacity(min(policy.capacity, policy.batchSize * 4))
        var spare = pending
        var failures = 0
        while true {
            wakeup.wait()
            let (triggers, held, unsavedDrops, report) = state.withLock { state in
                var triggers: [FlushPolicy.Trigger] = []
                if state.closing { triggers.append(.shutdown) }
                if !state.waiters.isEmpty { triggers.append(.flush) }
                if state.intervalTick { triggers.append(.interval) }
                if state.sizeRequested { triggers.append(.size) }
                state.intervalTick = false
                let report = state.droppingEpisode && !state.droppingReported
                if report { state.droppingReported = true }
                return (triggers, state.held, state.droppedUnsaved, report ? state.droppedTotal : nil)
            }
            if let report { diagnostics(.droppingAtBound(capacity: policy.capacity, droppedSoFar: report)) }
            let commit = triggers.contains {
                policy.decide(trigger: $0, held: held, unsavedDrops: unsavedDrops, retrying: failures > 0) == .commit
            }
            guard commit else { continue }
            let shuttingDown = triggers.contains(.shutdown)
            let (upTo, drops, durable) = state.withLock { state in
                swap(&state.buffer, &spare)
                state.inflight += spare.count
                state.sizeRequested = false
                let drops = state.droppedUnsaved
                state.droppedUnsaved = 0
                return (state.accepted, drops, state.closing || !state.waiters.isEmpty)
            }
            if pending.isEmpty { swap(&pending, &spare) } else {
                pending.append(contentsOf: spare)
                spare.removeAll(keepingCapacity: true)
            }
            do {
                try store.insert(pending, droppedAtBound: drops, durable: durable)
                let ready = state.withLock { state in
                    state.committed = upTo
                    state.inflight = 0
                    state.droppingEpisode = false
                    state.droppingReported = false
                    if shuttingDown { state.finished = true }
                    return shuttingDown ? state.waiters.removeAllReturning() : state.satisfiedWaiters()
                }
                if failures > 0 { diagnostics(.recovered(afterFailures: failures, committedEvents: pending.count)) }
                failures = 0
                pending.removeAll(keepingCapacity: true)
                for waiter in ready { waiter.continuation.resume() }
            } catch {
                let storageError = (error as? StorageError)
                    ?? StorageError(code: 0, message: "\(error)", path: store.path, kind: .other)
                failures += 1
                let waiting = state.withLock { state in
                    state.droppedUnsaved += drops
                    if shuttingDown {
                        state.finished = true
                        state.closeError = storageError
                    }
                    return state.waiters.removeAllReturning()
                }
                diagnostics(shuttingDown ? .lostOnClose(storageError, events: pending.count)
                                         : .commitFailed(storageError, heldEvents: pending.count))
                for waiter in waiting { waiter.continuation.resume(throwing: storageError) }
            }
            if shuttingDown { return }
        }
    }
}

extension Array {
    /// Empties the array, returning what it held.
    mutating func removeAllReturning() -> [Element] {
        defer { removeAll() }
        return self
    }
}
