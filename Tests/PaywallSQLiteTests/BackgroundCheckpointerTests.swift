import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// The WAL checkpoint off the writer's commits (import and the collector run one): pages reach the
/// main file from the checkpointer's thread, the WAL stays bounded when that thread falls behind,
/// and stopping gives the writer SQLite's automatic checkpoint back.
struct BackgroundCheckpointerTests {
    /// A store with one table of rows about a page each (4 KiB pages).
    static func store(in directory: TemporaryDirectory) throws -> Connection {
        let connection = try Connection(path: directory.path("store.sqlite"))
        try connection.execute("CREATE TABLE pages (n INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  // the main file has the table
        return connection
    }

    /// Commits `transactions` transactions of `rows` rows of 4,000 random bytes.
    static func write(_ connection: Connection, transactions: Int, rows: Int, from first: Int = 0) throws {
        for transaction in 0..<transactions {
            try connection.transaction { db in
                let base = first + transaction * rows
                try db.run(
                    """
                    WITH RECURSIVE k(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?1 + ?2)
                    INSERT INTO pages (n, body) SELECT i, randomblob(4000) FROM k
                    """, [.integer(Int64(base)), .integer(Int64(rows))])
            }
        }
    }

    /// Rows the main file holds by itself (an immutable reader ignores the WAL).
    static func rowsInMainFile(_ path: String) throws -> Int64 {
        let reader = try Connection(path: path, options: .immutableSnapshot)
        return try reader.scalar("SELECT count(*) FROM pages")?.int64 ?? -1
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Waits (a hang guard, not a measure) until `condition` holds.
    @Test func theThreadCopiesCommittedPagesIntoTheMainFileAndTheWriterNever() throws {
        // Given a store whose writer hands checkpoints to a checkpointer (threshold 100 pages)
        let directory = TemporaryDirectory()
        let connection = try Self.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(
            connection: connection, thresholdPages: 100, catchUpPages: 1_000_000)
        #expect(checkpointer.isRunning)
        // When 20 transactions of 300 pages commit
        try Self.write(connection, transactions: 20, rows: 300)
        // Then the thread checkpoints and the main file alone holds committed rows
        #expect(Eventually.holdsBlocking { checkpointer.backgroundCheckpoints >= 1 })
        checkpointer.stop()
        #expect(checkpointer.inlineCheckpoints == 0, "the WAL never reached the catch-up bound")
        #expect(try Self.rowsInMainFile(connection.path) >= 300)
        #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
        #expect(try connection.scalar("SELECT count(*) FROM pages")?.int64 == 6_000)
    }

    @Test func withoutTheThreadTheWriterCheckpointsNothingBelowTheCatchUpBound() throws {
        // Given a checkpointer whose thread is never woken (threshold = catch-up, far above the writes)
        let directory = TemporaryDirectory()
        let connection = try Self.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(
            connection: connection, thresholdPages: 100_000, catchUpPages: 100_000)
        // When 10 transactions of 300 pages commit (3,000 pages: SQLite alone would checkpoint at 1,000)
        try Self.write(connection, transactions: 10, rows: 300)
        // Then nothing reached the main file: the commits did not checkpoint
        #expect(try Self.rowsInMainFile(connection.path) == 0)
        #expect(checkpointer.backgroundCheckpoints == 0 && checkpointer.inlineCheckpoints == 0)
        checkpointer.stop()
    }

    @Test func aWriterAtTheCatchUpBoundCheckpointsInlineSoTheWALStaysBounded() throws {
        // Given a checkpointer with a catch-up bound of 200 pages and a thread never woken before it
        let directory = TemporaryDirectory()
        let connection = try Self.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(
            connection: connection, thresholdPages: 200, catchUpPages: 200)
        // When 30 transactions of 100 pages commit (3,000 pages, 12 MB without a checkpoint)
        try Self.write(connection, transactions: 30, rows: 100)
        checkpointer.stop()
        // Then the writer checkpointed inline and the WAL restarted: it never held much more than
        // the bound and one transaction
        #expect(checkpointer.inlineCheckpoints >= 5)
        let wal = Self.fileSize(connection.path + "-wal")
        #expect(wal > 0 && wal < 450 * 4_200, "WAL \(wal) bytes")
        #expect(try Self.rowsInMainFile(connection.path) >= 2_000)
        #expect(try connection.scalar("SELECT count(*) FROM pages")?.int64 == 3_000)
    }

    @Test func stoppingGivesTheWriterSQLitesAutomaticCheckpointBack() throws {
        // Given a checkpointer that is stopped before any write
        let directory = TemporaryDirectory()
        let connection = try Self.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(
            connection: connection, thresholdPages: 100_000, catchUpPages: 100_000)
        checkpointer.stop()
        checkpointer.stop()  // harmless
        #expect(!checkpointer.isRunning)
        // When 3,000 pages commit
        try Self.write(connection, transactions: 10, rows: 300)
        // Then the writer's own commits checkpointed (SQLite's 1,000 pages), and the thread did nothing
        #expect(try Self.rowsInMainFile(connection.path) >= 900)
        #expect(checkpointer.backgroundCheckpoints == 0)
        #expect(try connection.scalar("PRAGMA wal_autocheckpoint")?.int64 == 1_000)
    }

    @Test func aDatabaseWithoutAWALGetsNoThread() throws {
        // Given an in-memory database (its journal is not a WAL)
        let connection = try Connection(path: ":memory:", options: OpenOptions(create: false, wal: false))
        // When a checkpointer is made for it, Then it runs nothing, and stopping returns at once
        let checkpointer = try BackgroundCheckpointer(connection: connection)
        #expect(!checkpointer.isRunning)
        checkpointer.stop()
    }
}

/// ``BackgroundCheckpointer/stop()`` returns only once the thread closed its own connection: right
/// after it, the writer is the store's only connection, so closing the writer checkpoints and removes
/// the `-wal` and `-shm` as for a store that never had a checkpointer, and nothing of the
/// checkpointer touches those files later.
struct BackgroundCheckpointerStopTests {
    @Test func afterStopTheWriterIsTheOnlyConnection() throws {
        // Many rounds: a connection closed by the thread after stop() returned was a race.
        for round in 0..<40 {
            // Given a checkpointer that checkpointed at least once (its connection read the WAL)
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            var connection: Connection? = try BackgroundCheckpointerTests.store(in: directory)
            let path = try #require(connection).path
            var checkpointer: BackgroundCheckpointer? = try BackgroundCheckpointer(
                connection: try #require(connection), thresholdPages: 10, catchUpPages: 1_000_000)
            try BackgroundCheckpointerTests.write(try #require(connection), transactions: 2, rows: 20)
            #expect(Eventually.holdsBlocking { checkpointer?.backgroundCheckpoints ?? 0 >= 1 })
            // When it stops and the writer closes
            checkpointer?.stop()
            checkpointer = nil
            connection = nil
            // Then the writer was the last connection: the WAL was checkpointed and both files removed
            let left = ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
            #expect(left.isEmpty, "round \(round): \(left) still beside the store")
            if !left.isEmpty { break }
            let reader = try Connection(path: path, options: .immutableSnapshot)
            #expect(try reader.scalar("SELECT count(*) FROM pages")?.int64 == 40)
        }
    }
}

/// A checkpointer with a WAL limit (the collector's): under continuous commits the WAL starts over
/// instead of growing, a reader lets it grow only while it reads, after which the file comes back
/// within the limit, and an idle WAL is truncated.
struct BackgroundCheckpointerWALLimitTests {
    static let limit = 1 << 20

    @Test func continuousCommitsKeepTheWALFileWithinTheLimit() throws {
        // Given a writer with a 1 MiB WAL limit
        let directory = TemporaryDirectory()
        let connection = try BackgroundCheckpointerTests.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(connection: connection, walLimitBytes: Self.limit)
        defer { checkpointer.stop() }
        // When 600 transactions of 10 pages commit back to back (24 MB: 24 times the limit)
        var largest = 0
        for round in 0..<600 {
            try BackgroundCheckpointerTests.write(connection, transactions: 1, rows: 10, from: round * 10)
            largest = max(largest, BackgroundCheckpointerTests.fileSize(connection.path + "-wal"))
        }
        // Then the WAL file never passed the limit, and it started over many times
        #expect(largest > 0 && largest <= Self.limit, "largest WAL \(largest) bytes")
        #expect(checkpointer.inlineCheckpoints >= 5)
        #expect(try connection.scalar("SELECT count(*) FROM pages")?.int64 == 6_000)
    }

    @Test func aReaderLetsTheWALGrowOnlyWhileItReadsThenTheFileComesBack() throws {
        // Given a writer with a 1 MiB WAL limit and a reader holding a snapshot (as a report does)
        let directory = TemporaryDirectory()
        let connection = try BackgroundCheckpointerTests.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(connection: connection, walLimitBytes: Self.limit)
        defer { checkpointer.stop() }
        let wal = connection.path + "-wal"
        try BackgroundCheckpointerTests.write(connection, transactions: 1, rows: 10)
        let reader = try Connection(path: connection.path, options: OpenOptions(readOnly: true, create: false))
        try reader.execute("BEGIN")
        #expect(try reader.scalar("SELECT count(*) FROM pages")?.int64 == 10)
        // When 300 transactions of 10 pages commit while it reads
        for round in 1...300 {
            try BackgroundCheckpointerTests.write(connection, transactions: 1, rows: 10, from: round * 10)
        }
        // Then the WAL grew past the limit: the reader may still read the pages it holds
        #expect(BackgroundCheckpointerTests.fileSize(wal) > 4 * Self.limit)
        #expect(try reader.scalar("SELECT count(*) FROM pages")?.int64 == 10)
        // When the reader ends and commits go on, Then the file comes back within the limit
        try reader.execute("COMMIT")
        var round = 301
        let back = Eventually.holdsBlocking {
            try? BackgroundCheckpointerTests.write(connection, transactions: 1, rows: 1, from: round * 10)
            round += 1
            return BackgroundCheckpointerTests.fileSize(wal) <= Self.limit
        }
        #expect(back, "WAL still \(BackgroundCheckpointerTests.fileSize(wal)) bytes after \(round - 301) commits")
        #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
    }

    @Test func anIdleWALIsTruncated() throws {
        // Given a writer with a WAL limit that committed 50 pages, then stops writing
        let directory = TemporaryDirectory()
        let connection = try BackgroundCheckpointerTests.store(in: directory)
        let checkpointer = try BackgroundCheckpointer(connection: connection, walLimitBytes: Self.limit)
        defer { checkpointer.stop() }
        try BackgroundCheckpointerTests.write(connection, transactions: 5, rows: 10)
        #expect(BackgroundCheckpointerTests.fileSize(connection.path + "-wal") > 0)
        // Then, with no commit for a while, the thread copies everything and truncates the WAL file
        #expect(Eventually.holdsBlocking { checkpointer.truncations >= 1 })
        #expect(BackgroundCheckpointerTests.fileSize(connection.path + "-wal") == 0)
        #expect(try BackgroundCheckpointerTests.rowsInMainFile(connection.path) == 50)
    }
}
