import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

@testable import PaywallStore

/// The committer's backlog write: several transactions of whole segments, the drop count once.
struct CommitterTransactionTests {
    /// Three segments of 10,000 events (impressions among them): more than one transaction's worth.
    static let segments: [[EventRecord]] = (0..<3).map { segment in
        (0..<10_000).map { Fixtures.event(segment * 10_000 + $0) }
    }

    func core(_ directory: TemporaryDirectory) throws -> RecorderCore {
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(Fixtures.baseTime))
        return RecorderCore(
            store: store, policy: FlushPolicy(batchSize: 1_000, capacity: 100_000), diagnostics: { _ in })
    }

    @Test func aBacklogIsWrittenInSeveralTransactionsWithTheDropsOnce() throws {
        // Given a committer with a backlog of 30,000 events and 5 drops
        let directory = TemporaryDirectory()
        let core = try core(directory)
        #expect(RecorderCore.transactionLimit < 20_000)
        // When it writes them
        try core.write(Self.segments, droppedAtBound: 5, durable: true)
        // Then every event is stored once, each impression has its outbox row, the drops are one record
        let db = core.store.connection
        #expect(try Fixtures.count(db, "SELECT count(*) FROM events") == 30_000)
        #expect(try Fixtures.count(db, "SELECT count(*) FROM outbox") == 7_500)
        #expect(try db.all("SELECT count FROM drops") { $0.int64(at: 0) } == [5])
    }

    @Test func aFailureAfterTheFirstTransactionIsRetriedWholeWithoutDuplicatesOrDoubleDrops() throws {
        // Given a store that refuses one event of the second segment (a planted failure)
        let directory = TemporaryDirectory()
        let core = try core(directory)
        let db = core.store.connection
        try db.run(
            "INSERT INTO meta (key, value) VALUES ('test.refused', ?)", [.text(Self.segments[1][0].id.uuidString)])
        try db.execute(
            """
            CREATE TRIGGER planted_failure BEFORE INSERT ON events
            WHEN new.id = (SELECT value FROM meta WHERE key = 'test.refused')
            BEGIN SELECT RAISE(ABORT, 'planted failure'); END
            """)
        // When the backlog is written, fails, and is written again once the cause is gone
        let error = #expect(throws: StorageError.self) {
            try core.write(Self.segments, droppedAtBound: 5, durable: false)
        }
        #expect(error?.kind == .constraint, "RAISE(ABORT) in a trigger is a constraint failure")
        let afterFailure = try Fixtures.count(db, "SELECT count(*) FROM events")
        #expect(try Fixtures.count(db, "SELECT count(*) FROM drops") == 0)
        try db.execute("DROP TRIGGER planted_failure")
        try core.write(Self.segments, droppedAtBound: 5, durable: true)
        // Then the first transaction had stayed committed, and the retry stored the rest once
        #expect(afterFailure == 10_000)
        #expect(try Fixtures.count(db, "SELECT count(*) FROM events") == 30_000)
        #expect(try Fixtures.count(db, "SELECT count(*) FROM outbox") == 7_500)
        #expect(try db.all("SELECT count FROM drops") { $0.int64(at: 0) } == [5])
    }
}
