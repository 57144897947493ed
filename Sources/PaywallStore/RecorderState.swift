import PaywallCore
import PaywallSQLite

/// Everything the recording callers and the committer share, guarded by one `Lock`.
struct RecorderState: Sendable {
    /// A `flush()` or `close()` caller waiting until `target` events are committed.
    struct Waiter: Sendable {
        var target: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Events recorded and not yet taken by the committer, in fixed-capacity segments so that
    /// recording never copies the buffer to grow it.
    var segments: [[EventRecord]] = []
    /// Events in ``segments``.
    var buffered = 0
    /// Emptied segments (capacity kept) handed back by the committer for reuse.
    var freeSegments: [[EventRecord]] = []
    /// Events the committer holds (taken, not yet committed; kept across failed attempts).
    var inflight = 0
    /// Sequence number of the last accepted event (1-based count of accepted events).
    var accepted: UInt64 = 0
    /// Every accepted event up to this sequence number is committed.
    var committed: UInt64 = 0
    /// The install opted out: `record` keeps nothing and counts the call in ``optedOutTotal``.
    var optedOut = false
    /// `record` calls while opted out (never counted as drops).
    var optedOutTotal = 0
    /// Events dropped at the bound (or after close), in total.
    var droppedTotal = 0
    /// Drops not yet written to the `drops` table.
    var droppedUnsaved = 0
    /// Dropping began and the committer has not reported it yet / the episode is ongoing.
    var droppingEpisode = false
    var droppingReported = false

    /// The drop count to report when an episode of drops at the bound has not been reported yet
    /// (marking it reported), else `nil`: each episode reaches the diagnostics hook once, before
    /// any flush that was waiting while it began returns.
    mutating func takeDroppingReport() -> Int? {
        guard droppingEpisode, !droppingReported else { return nil }
        droppingReported = true
        return droppedTotal
    }

    /// The buffer reached the batch size and the committer was woken (cleared when it takes a batch).
    var sizeRequested = false
    /// The interval passed since the committer last looked.
    var intervalTick = false
    /// `close()` was called or the recorder was released: no more events are accepted.
    var closing = false
    /// The committer has exited.
    var finished = false
    /// Set when the final commit failed.
    var closeError: StorageError?
    var waiters: [Waiter] = []

    /// Events in memory: buffered plus held by the committer.
    var held: Int { buffered + inflight }

    /// Appends to the last segment, starting a new one (reused if possible) when it is full.
    mutating func append(_ event: EventRecord, segmentSize: Int) {
        if segments.isEmpty || segments[segments.count - 1].count >= segmentSize {
            var segment = freeSegments.popLast() ?? []
            segment.reserveCapacity(segmentSize)
            segments.append(segment)
        }
        segments[segments.count - 1].append(event)
        buffered += 1
    }

    /// Removes and returns the waiters satisfied by `committed`.
    mutating func satisfiedWaiters() -> [Waiter] {
        let ready = waiters.filter { $0.target <= committed }
        waiters.removeAll { $0.target <= committed }
        return ready
    }
}
