/// When the recorder commits and what it does at its bound: pure decisions, table-tested.
public struct FlushPolicy: Sendable, Hashable {
    /// Commit as soon as this many events are buffered.
    public var batchSize: Int
    /// The most events held in memory (buffered plus awaiting a retried commit). At the bound
    /// the newest event is dropped and counted (see ``admits(held:)``).
    public var capacity: Int
    /// Commit whatever is buffered when this much time passes.
    public var interval: Duration

    /// Creates a policy. `capacity` is raised to at least `batchSize`.
    public init(batchSize: Int = 1_000, capacity: Int = 100_000, interval: Duration = .seconds(1)) {
        self.batchSize = max(1, batchSize)
        self.capacity = max(capacity, self.batchSize)
        self.interval = interval
    }

    /// Why the committer woke up.
    public enum Trigger: Sendable, Hashable, CaseIterable {
        /// The buffer reached ``FlushPolicy/batchSize``.
        case size
        /// ``FlushPolicy/interval`` passed.
        case interval
        /// Someone called `flush()` and waits.
        case flush
        /// The recorder is closing.
        case shutdown
    }

    /// What the committer does.
    public enum Decision: Sendable, Hashable {
        /// Write everything held (and the drop count) in one transaction.
        case commit
        /// Keep waiting.
        case wait
    }

    /// Decides whether to commit now.
    ///
    /// - Parameters:
    ///   - trigger: why the committer woke.
    ///   - held: events in memory not yet committed (buffered plus any from a failed commit).
    ///   - unsavedDrops: drops counted but not yet written to the `drops` table.
    ///   - retrying: the last commit failed; size triggers then wait for the interval (or a
    ///     flush) instead of hammering a failing disk.
    public func decide(trigger: Trigger, held: Int, unsavedDrops: Int, retrying: Bool) -> Decision {
        switch trigger {
        case .flush, .shutdown:
            return .commit
        case .interval:
            return held > 0 || unsavedDrops > 0 ? .commit : .wait
        case .size:
            return !retrying && held >= batchSize ? .commit : .wait
        }
    }

    /// Whether one more event fits: `false` at the bound, where the policy is **drop newest**
    /// (the incoming event is refused and counted; events already held are kept, in order).
    public func admits(held: Int) -> Bool { held < capacity }
}
