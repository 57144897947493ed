import Foundation
import PaywallStore

/// The bounded queue between the request threads and the one writer thread, which commits all the
/// requests waiting at once in ONE transaction and one sync (a group commit), then answers each.
/// `submit` never waits: when the queue is full it says so, and the request is answered 503.
// @unchecked Sendable: `condition` guards `jobs`, `closed` and `writerDone`; the rest is immutable.
final class CommitQueue: @unchecked Sendable {
    /// One request's work and where its outcome goes (called on the writer thread).
    struct Job: Sendable {
        var part: CommitPart
        var done: @Sendable (Result<CommitCounts, any Error>) -> Void
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var closed = false
    private var writerDone = false
    private let capacity: Int
    private let maxGroupEvents: Int
    private let commit: @Sendable ([CommitPart]) throws -> [CommitCounts]
    private let observe: @Sendable (_ seconds: Double, _ succeeded: Bool) -> Void

    /// Creates the queue and starts its writer thread.
    /// - Parameters:
    ///   - commit: stores the parts in one transaction (``EventStore/commitGroup(_:)``).
    ///   - observe: told every commit's duration and outcome (metrics).
    init(
        capacity: Int, maxGroupEvents: Int = 50_000,
        commit: @escaping @Sendable ([CommitPart]) throws -> [CommitCounts],
        observe: @escaping @Sendable (Double, Bool) -> Void
    ) {
        self.capacity = capacity
        self.maxGroupEvents = maxGroupEvents
        self.commit = commit
        self.observe = observe
        let thread = Thread { [self] in writerLoop() }
        thread.name = "PaywallCollector.writer"
        thread.start()
    }

    /// Requests waiting for the writer.
    var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count
    }

    /// Queues `job`; returns `false` (and never calls `done`) when the queue is full or closed.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, jobs.count < capacity else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// Refuses new jobs, lets the writer commit every queued one, and waits until it has.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while !writerDone { condition.wait() }
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
            while taken < jobs.count, taken == 0 || events + jobs[taken].part.events.count <= maxGroupEvents {
                events += jobs[taken].part.events.count
                taken += 1
            }
            let group = Array(jobs.prefix(taken))
            jobs.removeFirst(taken)
            condition.unlock()
            let started = DispatchTime.now().uptimeNanoseconds
            let result = Result { try commit(group.map(\.part)) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            switch result {
            case .success(let counts):
                observe(seconds, true)
                for (job, count) in zip(group, counts) { job.done(.success(count)) }
            case .failure(let error):
                observe(seconds, false)
                for job in group { job.done(.failure(error)) }
            }
        }
    }
}
