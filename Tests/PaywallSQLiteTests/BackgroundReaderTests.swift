import Foundation
import PaywallLock
import PaywallSQLite
import PaywallTestSupport
import Testing

/// The one reader on a second connection and its bounded channel (NDJSON import, the rollup and
/// the nightly partials all read through them).
struct BackgroundReaderTests {
    struct Broken: Error, Equatable { let after: Int }

    @Test func handsOverEveryItemInOrderThenTheReadersErrorInItsPlace() throws {
        // Given a reader that sends 1…50 through a channel of two, then fails
        let reader = BackgroundReader<Int>(capacity: 2, name: "test.reader") { send in
            for value in 1...50 where !send(value) { return }
            throw Broken(after: 50)
        }
        defer { reader.stop() }
        // When the caller takes everything
        var received: [Int] = []
        let error = #expect(throws: Broken.self) {
            while let value = try reader.next() { received.append(value) }
        }
        // Then every item came, in order, and the error after them
        #expect(received == Array(1...50))
        #expect(error == Broken(after: 50))
        #expect(try reader.next() == nil, "after its error the reader has ended")
    }

    @Test func aChannelFreedWithItemsStillQueuedDoesNotTrap() {
        // Given channels left with items queued, as a consumer that stopped early leaves them
        // (libdispatch traps when a semaphore is freed below its starting value: CI once crashed
        // here, in a nightly whose partials load failed while the reader had items waiting)
        for capacity in [1, 2, 8] {
            var channel: BoundedChannel<Int>? = BoundedChannel(capacity: capacity)
            for value in 0..<capacity { #expect(channel?.send(value) == true) }
            channel?.cancel()
            #expect(channel?.send(99) == false, "after cancel a send is dropped")
            // When the channel is freed, Then the process is still here to check what it held
            #expect(channel?.receive() == 0)
            channel = nil
            #expect(channel == nil)
        }
    }

    @Test func stoppingEarlyReleasesAReaderWaitingForRoom() throws {
        // Given a reader with far more to send than the channel holds
        let sent = Lock(0)
        let reader = BackgroundReader<Int>(capacity: 1, name: "test.reader") { send in
            for value in 1...1_000_000 {
                guard send(value) else { return }
                sent.withLock { $0 += 1 }
            }
        }
        // When the caller takes one item and stops
        #expect(try reader.next() == 1)
        reader.stop()
        reader.stop()  // again: harmless
        // Then the reader has ended long before sending everything
        #expect(sent.withLock { $0 } < 1_000)
    }

    @Test func readsOnASecondConnectionWhileTheFirstHoldsAWriteTransaction() throws {
        // Given a WAL database with rows, and a write transaction open on the first connection
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let writer = try Connection(path: path)
        try writer.execute("CREATE TABLE t (x INTEGER) STRICT")
        try writer.execute(
            "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 100) INSERT INTO t SELECT x FROM n"
        )
        // When a background reader reads them on its own connection during that transaction
        let values = try writer.transaction { db -> [Int64] in
            try db.execute("INSERT INTO t VALUES (1000)")
            let reader = try BackgroundReader<Int64>(path: path, capacity: 4, name: "test.reader") { connection, send in
                try connection.withDatabase { db in
                    try db.forEachRow("SELECT x FROM t ORDER BY x") { row in send(row.int64(at: 0)) }
                }
            }
            defer { reader.stop() }
            var values: [Int64] = []
            while let value = try reader.next() { values.append(value) }
            return values
        }
        // Then it saw the committed rows only, in order
        #expect(values == (1...100).map(Int64.init))
        #expect(try writer.scalar("SELECT count(*) FROM t")?.int64 == 101)
    }

    @Test func aSecondConnectionToNoDatabaseIsAStorageErrorAndCreatesNothing() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let error = #expect(throws: StorageError.self) {
            _ = try BackgroundReader<Int>(path: directory.path("none.sqlite"), capacity: 1, name: "test.reader") {
                _, _ in
            }
        }
        #expect(error?.kind == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.sqlite")))
    }
}
