import Foundation
import PaywallStore
import PaywallWire

/// The bounded queue between the request threads and the one writer thread, which commits all the
/// requests waiting at once in ONE transaction (a group commit), then has them answered. RevenueCat
/// webhooks share it: the webhook bodies of a group go to the subscription store in one more
/// transaction of the same turn, and are answered after the same sync.
/// `submit` never waits: when the queue is full it says so, and the request is answered 503.
///
/// Design note (a shortcut for speed): with a `sync`, the writer does not wait for the disk. It
/// commits a group (the connection runs `synchronous = NORMAL`, so the commit writes the WAL
/// without flushing it), hands the group to a syncer thread and starts the next group at once; the
/// syncer flushes the WAL (``PaywallSQLite/WALSync``, one `fdatasync` for every group committed
/// since the last) and only then answers those groups. A request is still answered 200 only once
/// its events are committed and on disk; the writer just no longer sits idle during each sync
/// (about 3 ms per group, an eighth of its time under `wrk -c64`). If the sync fails, the groups
/// it covered are answered with the error (503): their events are committed but may not be on
/// disk, and a client that resends them is told they are duplicates.
// @unchecked Sendable: `condition` guards `jobs`, `closed`, `committed`, `writerDone` and
// `syncerDone`; the rest is immutable.
final class CommitQueue: @unchecked Sendable {
    /// What one job asks the writer to store.
    enum Work: Sendable {
        /// A `POST /v1/events` request's events and quarantined lines (``EventStore/commitGroup(_:)``).
        case events(CommitPart)
        /// A RevenueCat webhook body (``SubscriptionIngest``).
        case webhook(Data)
    }

    /// What the writer made of one job's work.
    enum Outcome: Sendable {
        case events(GroupCommitOutcome)
        case webhook(WebhookOutcome)
        /// This job's work alone failed (the other kind in the same group may be committed).
        case failed(any Error)
    }

    /// One request's work and where its outcome goes (called on the writer or syncer thread).
    struct Job: Sendable {
        var work: Work
        /// A health probe: it takes no slot of the capacity and is not counted in ``depth`` (one
        /// at most waits at a time), so probing never turns a request away.
        var probe = false
        var finish: @Sendable (Result<Outcome, any Error>) -> Void

        /// A job of events, told its counts.
        init(part: CommitPart, probe: Bool = false, done: @escaping @Sendable (Result<EventCounts, any Error>) -> Void)
        {
            self.init(events: part, probe: probe, answered: { done($0.map(\.counts)) })
        }

        /// A job of events, told its counts and its conflicts (the events quarantined at commit).
        init(
            events part: CommitPart, probe: Bool = false,
            answered done: @escaping @Sendable (Result<GroupCommitOutcome, any Error>) -> Void
        ) {
            work = .events(part)
            self.probe = probe
            finish = { result in
                switch result {
                case .success(.events(let outcome)): done(.success(outcome))
                case .success(.failed(let error)): done(.failure(error))
                case .success(.webhook): done(.success(GroupCommitOutcome(counts: EventCounts(accepted: 0))))
                case .failure(let error): done(.failure(error))
                }
            }
        }

        /// A job of one webhook body, told what became of it.
        init(webhook body: Data, done: @escaping @Sendable (Result<WebhookOutcome, any Error>) -> Void) {
            work = .webhook(body)
            finish = { result in
                switch result {
                case .success(.webhook(let outcome)): done(.success(outcome))
                case .success(.failed(let error)): done(.failure(error))
                case .success(.events): done(.failure(CommitQueue.Mismatch()))
                case .failure(let error): done(.failure(error))
                }
            }
        }

        /// Events this job adds to a group (a webhook counts as one).
        var size: Int {
            switch work {
            case .events(let part): part.events.count
            case .webhook: 1
            }
        }
    }

    /// The writer answered a job with the other kind's outcome (a bug; the request gets 503).
    struct Mismatch: Error {}

    /// The sync after a commit failed: the group's events are committed but may not be on disk.
    struct SyncFailed: Error {
        var underlying: any Error
    }

    /// A committed group waiting for its sync.
    private struct Committed {
        var jobs: [Job]
        var counts: [Outcome]
        var started: UInt64
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var committed: [Committed] = []
    private var closed = false
    private var writerDone = false
    private var syncerDone = false
    private let capacity: Int
    private let maxGroupEvents: Int
    private let commit: @Sendable ([Work]) throws -> [Outcome]
    private let sync: (@Sendable () throws -> Void)?
    private let observe: @Sendable (_ seconds: Double, _ succeeded: Bool) -> Void

    /// Creates the queue and starts its writer thread (and, with `sync`, its syncer thread).
    /// - Parameters:
    ///   - maxGroupEvents: the most events one group commit takes (at least one request).
    ///   - commit: stores the parts in one transaction (``EventStore/commitGroup(_:)``).
    ///   - sync: makes every commit so far durable (`nil`: `commit` already does, `synchronous = FULL`).
    ///   - observe: told every group's duration (commit and sync) and outcome (metrics).
    convenience init(
        capacity: Int, maxGroupEvents: Int = 50_000,
        commit: @escaping @Sendable ([CommitPart]) throws -> [EventCounts],
        sync: (@Sendable () throws -> Void)? = nil,
        observe: @escaping @Sendable (Double, Bool) -> Void
    ) {
        self.init(
            capacity: capacity, maxGroupEvents: maxGroupEvents,
            store: { works in
                let parts = works.compactMap { work -> CommitPart? in
                    if case .events(let part) = work { part } else { nil }
                }
                var counts = try commit(parts)[...]
                return works.map { work in
                    if case .events = work, let next = counts.popFirst() {
                        .events(GroupCommitOutcome(counts: next))
                    } else {
                        .failed(Mismatch())
                    }
                }
            },
            sync: sync, observe: observe)
    }

    /// Creates the queue for both kinds of work; `store` commits a group's work (in as many
    /// transactions as it needs) and returns one outcome per work, in order.
    init(
        capacity: Int, maxGroupEvents: Int = 50_000,
        store: @escaping @Sendable ([Work]) throws -> [Outcome],
        sync: (@Sendable () throws -> Void)? = nil,
        observe: @escaping @Sendable (Double, Bool) -> Void
    ) {
        self.capacity = capacity
        self.maxGroupEvents = maxGroupEvents
        self.commit = store
        self.sync = sync
        self.observe = observe
        syncerDone = sync == nil
        let thread = Thread { [self] in writerLoop() }
        thread.name = "PaywallCollector.writer"
        thread.start()
        if sync != nil {
            let syncer = Thread { [self] in syncerLoop() }
            syncer.name = "PaywallCollector.syncer"
            syncer.start()
        }
    }

    /// Whether ``close()`` was called (new jobs are refused).
    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Requests waiting for the writer (health probes not counted).
    var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - probes
    }

    /// Health probes among `jobs`.
    private var probes = 0

    /// Queues `job`; returns `false` (and never calls `done`) when the queue is full or closed.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, job.probe || jobs.count - probes < capacity else { return false }
        jobs.append(job)
        if job.probe { probes += 1 }
        condition.broadcast()
        return true
    }

    /// Refuses new jobs, lets the writer commit every queued one, and waits until it has.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !writerDone || !syncerDone { condition.wait() }
        condition.unlock()
    }

    private func writerLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !closed { condition.wait() }
            if jobs.isEmpty {
                writerDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            var taken = 0
            var events = 0
            while taken < jobs.count, taken == 0 || events + jobs[taken].size <= maxGroupEvents {
                events += jobs[taken].size
                taken += 1
            }
            let group = Array(jobs.prefix(taken))
            jobs.removeFirst(taken)
            probes -= group.filter(\.probe).count
            condition.unlock()
            let started = DispatchTime.now().uptimeNanoseconds
            let result = Result { try commit(group.map(\.work)) }
            switch result {
            case .success(let counts) where sync != nil:
                condition.lock()
                committed.append(Committed(jobs: group, counts: counts, started: started))
                condition.broadcast()
                condition.unlock()
            case .success(let counts):
                observe(Self.seconds(since: started), true)
                for (job, count) in zip(group, counts) { job.finish(.success(count)) }
            case .failure(let error):
                observe(Self.seconds(since: started), false)
                for job in group { job.finish(.failure(error)) }
            }
        }
    }

    /// With a `sync`: waits for committed groups, syncs once for all of them, then answers them.
    private func syncerLoop() {
        guard let sync else { return }
        while true {
            condition.lock()
            while committed.isEmpty && !writerDone { condition.wait() }
            if committed.isEmpty {
                syncerDone = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let groups = committed
            committed.removeAll()
            condition.unlock()
            let outcome = Result { try sync() }
            for group in groups {
                switch outcome {
                case .success:
                    observe(Self.seconds(since: group.started), true)
                    for (job, count) in zip(group.jobs, group.counts) { job.finish(.success(count)) }
                case .failure(let error):
                    observe(Self.seconds(since: group.started), false)
                    for job in group.jobs { job.finish(.failure(SyncFailed(underlying: error))) }
                }
            }
        }
    }

    private static func seconds(since started: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }
}
