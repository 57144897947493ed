import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct SQLiteOutboxTests {
    let directory = TemporaryDirectory()

    func store() throws -> EventStore {
        try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
    }

    @Test func dueItemsComeInBatchesInOccurredAtOrderWithTheirAttempts() throws {
        // Given 120 impressions stored out of order plus a non-impression event
        let store = try store()
        var events = impressions(120).shuffled()
        events.append(
            EventRecord(
                id: UUID(), name: .paywallClosed, occurredAt: 1, userID: "u",
                properties: EventProperties(pwID: UUID(), source: "s", result: .dismissed, via: .auto, openS: 1)))
        try store.insert(events)
        let outbox = SQLiteOutbox(store: store)
        // When the first batch is read
        let batch = try outbox.due(now: 0, limit: 50)
        // Then it holds 50 impressions in occurred_at order, read back field for field
        #expect(batch.count == 50)
        #expect(batch.map(\.event.occurredAt) == batch.map(\.event.occurredAt).sorted())
        let expected = Dictionary(uniqueKeysWithValues: impressions(120).map { ($0.id, $0) })
        for item in batch {
            var original = try #require(expected[item.event.id])
            original.recordedAt = 1_764_500_000_000
            #expect(item.event == original && item.attempts == 0)
        }
    }

    @Test func outcomesAreStoredAndRequeueBringsDeadLettersBack() throws {
        let store = try store()
        try store.insert(impressions(30))
        let outbox = SQLiteOutbox(store: store)
        let ids = try outbox.due(now: 0, limit: 30).map(\.event.id)
        // When 10 are delivered, 10 scheduled for retry, 10 dead-lettered
        try outbox.markDelivered(Array(ids[0..<10]), at: 100)
        try outbox.scheduleRetry(Array(ids[10..<20]), attempts: 2, notBefore: 5_000)
        try outbox.deadLetter(Array(ids[20..<30]), status: 401, reason: "{\"message\":\"bad key\"}", at: 200)
        // Then the tables say so (pending in the outbox with their attempts, delivered in deliveries,
        // dead as open dead letters), and only the retried ones are due later
        #expect(try deliveryStates(store.connection) == ["dead": 10, "delivered": 10, "pending": 10])
        #expect(try store.connection.all("SELECT DISTINCT attempts FROM outbox") { $0.int64(at: 0) } == [2])
        #expect(try store.connection.scalar("SELECT count(*) FROM deliveries WHERE delivered_at = 100")?.int64 == 10)
        #expect(try outbox.due(now: 4_999, limit: 50).isEmpty)
        #expect(try outbox.due(now: 5_000, limit: 50).map(\.attempts) == Array(repeating: 2, count: 10))
        #expect(try outbox.nextAttemptTime() == 5_000)
        let dead = try store.connection.all("SELECT status, reason, dead_at, requeued_at FROM dead_letters") {
            "\($0.int64(at: 0)) \($0.string(at: 1)!) \($0.int64(at: 2)) \($0.optionalInt64(at: 3).map(String.init) ?? "-")"
        }
        #expect(dead == Array(repeating: "401 {\"message\":\"bad key\"} 200 -", count: 10))
        // When the operator requeues
        #expect(try outbox.requeueDeadLetters(now: 300) == 10)
        // Then they are pending again, due now, attempts reset, history kept and stamped
        #expect(try outbox.due(now: 300, limit: 50).filter { ids[20..<30].contains($0.event.id) }.count == 10)
        #expect(try store.connection.scalar("SELECT count(*) FROM dead_letters WHERE requeued_at = 300")?.int64 == 10)
        #expect(try deliveryStates(store.connection) == ["delivered": 10, "pending": 20])
        #expect(try outbox.requeueDeadLetters(now: 400) == 0)
    }

    @Test func deliveredRowsAreNotReopenedByLateOutcomes() throws {
        let store = try store()
        try store.insert(impressions(1))
        let outbox = SQLiteOutbox(store: store)
        let id = impressions(1)[0].id
        try outbox.markDelivered([id], at: 1)
        try outbox.scheduleRetry([id], attempts: 5, notBefore: 9)
        try outbox.deadLetter([id], status: 400, reason: "late", at: 2)
        #expect(try deliveryStates(store.connection) == ["delivered": 1])
        #expect(try store.connection.scalar("SELECT delivered_at FROM deliveries")?.int64 == 1)
        #expect(try store.connection.scalar("SELECT count(*) FROM dead_letters")?.int64 == 0)
    }

    @Test func aLeaseWhoseHolderIsGoneIsTakenOverAtOnceAndOnlyThen() throws {
        // Given a lease of owner A, unexpired, on a store whose lease lock file names A and is held by
        // no process (what a killed pass leaves behind)
        let path = directory.path("events.sqlite")
        let outbox = SQLiteOutbox(connection: try Schema.open(path: path))
        let lockFile = path + "-" + SQLiteOutbox.leaseKey + ".lock"
        _ = try outbox.acquireLease(owner: "A", now: 1_000, durationMs: 600_000)
        try outbox.releaseLease(owner: "A")
        _ = try Connection(path: path).run(
            "INSERT INTO meta (key, value) VALUES (?1, '601000 A')", [.text(SQLiteOutbox.leaseKey)])
        try Data("A".utf8).write(to: URL(fileURLWithPath: lockFile))
        // Then another owner takes it at once, and holds it against a third while it lives
        let other = SQLiteOutbox(connection: try Schema.open(path: path))
        #expect(try other.acquireLease(owner: "B", now: 2_000, durationMs: 600_000))
        #expect(try other.lease()?.owner == "B")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: lockFile)), as: UTF8.self) == "B\nA")
        #expect(try !outbox.acquireLease(owner: "C", now: 3_000, durationMs: 600_000))
        try other.releaseLease(owner: "B")
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        // And a lease whose owner the lock file does not name (not known to be gone) waits for its expiry
        _ = try Connection(path: path).run(
            "INSERT INTO meta (key, value) VALUES (?1, '601000 D')", [.text(SQLiteOutbox.leaseKey)])
        #expect(try !other.acquireLease(owner: "E", now: 4_000, durationMs: 600_000))
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        #expect(try other.acquireLease(owner: "E", now: 601_000, durationMs: 600_000))
        try other.releaseLease(owner: "E")
        #expect(!FileManager.default.fileExists(atPath: lockFile))
    }

    @Test func aLeaseWhoseRowCannotBeWrittenGivesItsLockFileBackAsItFoundIt() throws {
        // Given a store whose lease row cannot be written (a trigger refuses it, as a failing disk would)
        let path = directory.path("events.sqlite")
        let outbox = SQLiteOutbox(connection: try Schema.open(path: path))
        let lockFile = path + "-" + SQLiteOutbox.leaseKey + ".lock"
        let admin = try Connection(path: path)
        let refuse = """
            CREATE TRIGGER refuse_lease BEFORE INSERT ON meta WHEN NEW.key = '\(SQLiteOutbox.leaseKey)'
            BEGIN SELECT RAISE(ABORT, 'lease row refused'); END
            """
        try admin.execute(refuse)
        // When a pass tries to take the free lease, Then it fails, leaves no lock file and no lock held
        #expect(throws: (any Error).self) { try outbox.acquireLease(owner: "A", now: 1_000, durationMs: 600_000) }
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        // Given the lease of a gone owner G (unexpired row, a lock file naming G and held by no one)
        try admin.execute("DROP TRIGGER refuse_lease")
        _ = try admin.run("INSERT INTO meta (key, value) VALUES (?1, '601000 G')", [.text(SQLiteOutbox.leaseKey)])
        try Data("G".utf8).write(to: URL(fileURLWithPath: lockFile))
        try admin.execute(refuse)
        // When a pass B tries to take it over and its row is refused
        #expect(throws: (any Error).self) { try outbox.acquireLease(owner: "B", now: 2_000, durationMs: 600_000) }
        // Then the file names G alone again (B, which lives, is not vouched for as gone) and its lock is free
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: lockFile)), as: UTF8.self) == "G")
        let descriptor = open(lockFile, O_RDWR | O_CLOEXEC)
        #expect(descriptor >= 0 && flock(descriptor, LOCK_EX | LOCK_NB) == 0, "the lock file's lock was kept")
        close(descriptor)
        // And once rows can be written again, another pass takes G's lease over at once
        try admin.execute("DROP TRIGGER refuse_lease")
        #expect(try outbox.acquireLease(owner: "C", now: 3_000, durationMs: 600_000))
        #expect(try outbox.lease()?.owner == "C")
        try outbox.releaseLease(owner: "C")
        #expect(!FileManager.default.fileExists(atPath: lockFile))
    }

    @Test func leaseIsExclusiveAcrossConnectionsUntilItExpiresOrIsReleased() throws {
        // Given two connections to the same file, as two processes would have
        let path = directory.path("events.sqlite")
        let first = SQLiteOutbox(connection: try Schema.open(path: path))
        let second = SQLiteOutbox(connection: try Schema.open(path: path))
        // Then one holder at a time; the holder may renew; expiry and release free it
        #expect(try first.acquireLease(owner: "A", now: 1_000, durationMs: 500))
        #expect(try !second.acquireLease(owner: "B", now: 1_200, durationMs: 500))
        #expect(try first.acquireLease(owner: "A", now: 1_400, durationMs: 500))
        #expect(try !second.acquireLease(owner: "B", now: 1_800, durationMs: 500))
        #expect(try second.acquireLease(owner: "B", now: 1_900, durationMs: 500))
        #expect(try !first.acquireLease(owner: "A", now: 2_000, durationMs: 500))
        try first.releaseLease(owner: "A")
        #expect(try second.lease()?.owner == "B")
        try second.releaseLease(owner: "B")
        #expect(try second.lease() == nil)
        #expect(try first.acquireLease(owner: "A", now: 2_000, durationMs: 500))
    }
}
