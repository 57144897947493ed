import Dispatch
import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import PaywallWire
import Testing

@testable import PaywallCollector

/// The group commit's queue with a syncer: no request is answered before the sync that follows
/// its commit, one sync covers every group committed meanwhile, and a failed sync answers its
/// groups with the failure. The syncs here are closures the test controls (fast and exact); the
/// real `fdatasync` is `WALSync`, tested on a real file below, and the collector runs both under
/// load in `CollectorCrashTests` and the status matrix.
struct CommitQueueTests {
    /// What the test's jobs were told, in order.
    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: Result<EventCounts, any Error>] = [:]
        func record(_ job: Int, _ result: Result<EventCounts, any Error>) {
            lock.withLock { results[job] = result }
        }
        var count: Int { lock.withLock { results.count } }
        func result(_ job: Int) -> Result<EventCounts, any Error>? { lock.withLock { results[job] } }
    }

    /// A part of `events` empty events (the queue counts events only to size groups).
    static func part() -> CommitPart {
        CommitPart(events: [], quarantine: [], impressions: .pending)
    }

    @Test func noRequestIsAnsweredBeforeTheSyncAfterItsCommit() throws {
        // Given a queue whose sync waits until the test lets it go
        let release = DispatchSemaphore(value: 0)
        let syncs = Lock(0)
        let commits = Lock(0)
        let queue = CommitQueue(
            capacity: 64,
            commit: { parts in
                commits.withLock { $0 += 1 }
                return parts.map { _ in EventCounts(accepted: 1, duplicates: 0, quarantined: 0) }
            },
            sync: {
                release.wait()
                syncs.withLock { $0 += 1 }
            },
            observe: { _, _ in })
        let answers = Answers()
        // When 10 jobs are submitted and committed
        for job in 0..<10 {
            #expect(queue.submit(CommitQueue.Job(part: Self.part()) { answers.record(job, $0) }))
        }
        #expect(Eventually.holdsBlocking { commits.withLock { $0 } >= 1 && queue.depth == 0 })
        usleep(50_000)
        // Then none is answered while the sync has not returned
        #expect(answers.count == 0, "answered before the sync")
        // When the syncs return
        for _ in 0..<10 { release.signal() }
        // Then every job is answered with its counts, and one sync covered several groups at most once each
        #expect(Eventually.holdsBlocking { answers.count == 10 })
        for job in 0..<10 {
            #expect((try? answers.result(job)?.get())?.accepted == 1)
        }
        #expect(syncs.withLock { $0 } <= commits.withLock { $0 })
        for _ in 0..<10 { release.signal() }
        queue.close()
    }

    @Test func aFailedSyncAnswersItsGroupsWithTheFailureAndTheNextSyncAnswersLaterOnes() throws {
        // Given a queue whose first sync fails and whose later syncs succeed
        struct DiskGone: Error {}
        let first = Lock(true)
        let gate = DispatchSemaphore(value: 0)
        let queue = CommitQueue(
            capacity: 64,
            commit: { parts in parts.map { _ in EventCounts(accepted: 1, duplicates: 0, quarantined: 0) } },
            sync: {
                gate.wait()
                if first.withLock({ value in
                    defer { value = false }
                    return value
                }) {
                    throw DiskGone()
                }
            },
            observe: { _, _ in })
        let answers = Answers()
        // When one job commits and its sync fails
        #expect(queue.submit(CommitQueue.Job(part: Self.part()) { answers.record(0, $0) }))
        gate.signal()
        #expect(Eventually.holdsBlocking { answers.count == 1 })
        // Then it is told the sync failed (its events are committed, maybe not on disk)
        guard case .failure(let error) = answers.result(0) else {
            Issue.record("a job whose sync failed was answered with success")
            return
        }
        #expect(error is CommitQueue.SyncFailed)
        // When another job commits and its sync succeeds, Then it is answered with its counts
        #expect(queue.submit(CommitQueue.Job(part: Self.part()) { answers.record(1, $0) }))
        gate.signal()
        #expect(Eventually.holdsBlocking { answers.count == 2 })
        #expect((try? answers.result(1)?.get())?.accepted == 1)
        for _ in 0..<4 { gate.signal() }
        queue.close()
    }

    @Test func closingCommitsSyncsAndAnswersEverythingQueued() throws {
        // Given a queue with a slow commit and 40 jobs queued
        let syncs = Lock(0)
        let queue = CommitQueue(
            capacity: 64,
            commit: { parts in
                usleep(2_000)
                return parts.map { _ in EventCounts(accepted: 1, duplicates: 0, quarantined: 0) }
            },
            sync: { syncs.withLock { $0 += 1 } },
            observe: { _, _ in })
        let answers = Answers()
        for job in 0..<40 {
            #expect(queue.submit(CommitQueue.Job(part: Self.part()) { answers.record(job, $0) }))
        }
        // When the queue closes, Then every job was answered with success before close returned
        queue.close()
        #expect(answers.count == 40)
        #expect((0..<40).allSatisfy { (try? answers.result($0)?.get()) != nil })
        #expect(syncs.withLock { $0 } >= 1)
        #expect(!queue.submit(CommitQueue.Job(part: Self.part()) { _ in }), "closed: refused")
    }

    @Test func walSyncFlushesARealStoresLogAndFailsClearlyWithoutOne() throws {
        // Given a real WAL store with a commit written under synchronous = NORMAL
        let directory = TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let connection = try Connection(path: path)
        try connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
        // When its WAL is synced (twice: the second reuses the descriptor), Then it succeeds
        let sync = WALSync(databasePath: path)
        try sync.sync()
        try sync.sync()
        // And a store without a WAL file gets an I/O error that says so
        let missing = WALSync(databasePath: directory.path("none.sqlite"))
        let error = #expect(throws: StorageError.self) { try missing.sync() }
        #expect(error?.kind == .ioError)
        #expect(error?.message.contains("the WAL file is missing") == true)
    }
}
