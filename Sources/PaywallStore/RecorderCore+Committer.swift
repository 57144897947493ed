import Dispatch
import PaywallCore
import PaywallLock
import PaywallSQLite

extension RecorderCore {
    /// The committer loop: wait for a trigger, ask the policy, commit one transaction.
    func runCommitter() {
        var pending: [[EventRecord]] = []
        var pendingCount = 0
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
                return (triggers, state.held, state.droppedUnsaved, state.takeDroppingReport())
            }
            if let report { diagnostics(.droppingAtBound(capacity: policy.capacity, droppedSoFar: report)) }
            let commit = triggers.contains {
                policy.decide(trigger: $0, held: held, unsavedDrops: unsavedDrops, retrying: failures > 0) == .commit
            }
            guard commit else { continue }
            let shuttingDown = triggers.contains(.shutdown)
            let (upTo, drops, durable, taken) = state.withLock { state in
                let taken = state.segments
                state.segments = []
                state.inflight += state.buffered
                state.buffered = 0
                state.sizeRequested = false
                let drops = state.droppedUnsaved
                state.droppedUnsaved = 0
                return (state.accepted, drops, state.closing || !state.waiters.isEmpty, taken)
            }
            pending += taken
            pendingCount = pending.reduce(0) { $0 + $1.count }
            do {
                try write(pending, droppedAtBound: drops, durable: durable)
                // Empty up to four segments (keeping their capacity) for reuse by `record`; each is
                // moved, not shared, so a caller appending to it never triggers a copy.
                var recycled = Array(pending.prefix(4))
                pending = []
                for index in recycled.indices { recycled[index].removeAll(keepingCapacity: true) }
                let (ready, report) = state.withLock { state in
                    while state.freeSegments.count < 4, let segment = recycled.popLast() {
                        state.freeSegments.append(segment)
                    }
                    state.committed = upTo
                    state.inflight = 0
                    // An episode that began during this commit is reported before it ends.
                    let report = state.takeDroppingReport()
                    state.droppingEpisode = false
                    state.droppingReported = false
                    if shuttingDown { state.finished = true }
                    return (shuttingDown ? state.waiters.removeAllReturning() : state.satisfiedWaiters(), report)
                }
                if let report { diagnostics(.droppingAtBound(capacity: policy.capacity, droppedSoFar: report)) }
                if failures > 0 { diagnostics(.recovered(afterFailures: failures, committedEvents: pendingCount)) }
                failures = 0
                for waiter in ready { waiter.continuation.resume() }
            } catch {
                let storageError =
                    (error as? StorageError)
                    ?? StorageError(code: 0, message: "\(error)", path: store.path, kind: .other)
                failures += 1
                let (waiting, report) = state.withLock { state in
                    state.droppedUnsaved += drops
                    if shuttingDown {
                        state.finished = true
                        state.closeError = storageError
                    }
                    return (state.waiters.removeAllReturning(), state.takeDroppingReport())
                }
                // Drops that began during the failed commit are reported before its waiters hear of it.
                if let report { diagnostics(.droppingAtBound(capacity: policy.capacity, droppedSoFar: report)) }
                diagnostics(
                    shuttingDown
                        ? .lostOnClose(storageError, events: pendingCount)
                        : .commitFailed(storageError, heldEvents: pendingCount))
                for waiter in waiting { waiter.continuation.resume(throwing: storageError) }
            }
            if shuttingDown { return }
        }
    }
}

extension RecorderCore {
    /// Events per transaction when a backlog has built up (a transaction far larger than SQLite's
    /// page cache costs more per row than several of this size).
    static let transactionLimit = 16_384

    /// Writes `segments` in order, in transactions of whole segments holding up to
    /// ``transactionLimit`` events (or `batchSize`, if larger); the drop count and the sync of a
    /// durable commit go with the last one. When a later transaction fails, the earlier ones stay
    /// committed: the caller keeps every segment and retries, and storing by id skips those.
    func write(_ segments: [[EventRecord]], droppedAtBound drops: Int, durable: Bool) throws {
        let limit = max(policy.batchSize, Self.transactionLimit)
        var start = 0
        repeat {
            var end = start
            var count = 0
            while end < segments.count, end == start || count + segments[end].count <= limit {
                count += segments[end].count
                end += 1
            }
            let last = end >= segments.count
            let outcome = try store.insertReporting(
                segments[start..<end].joined(), droppedAtBound: last ? drops : 0,
                durable: durable && last, provenance: Self.provenance)
            if outcome.conflicts > 0 { diagnostics(.conflictsQuarantined(count: outcome.conflicts)) }
            start = end
        } while start < segments.count
    }

    /// The origin of the quarantine rows of the recorder's conflicts.
    static let provenance = EventProvenance(origin: "recorder", lines: nil)
}

extension Array {
    /// Empties the array, returning what it held.
    mutating func removeAllReturning() -> [Element] {
        defer { removeAll() }
        return self
    }
}
