import Foundation
import PaywallLock
import PaywallTestSupport
import Testing

@testable import PaywallSQLite

struct ConnectionTests {
    @Test func createsTheFileAndItsWALFilesReadableByTheOwnerOnly() throws {
        // Given a path where no file exists
        let directory = TemporaryDirectory()
        let path = directory.path("new.sqlite")
        // When a connection creates it and writes
        let connection = try Connection(path: path)
        try connection.execute("CREATE TABLE t (x INTEGER) STRICT; INSERT INTO t VALUES (1)")
        // Then the database, its WAL and its shared-memory file are mode 0600
        #expect(try permissions(path) == 0o600)
        #expect(try permissions(path + "-wal") == 0o600)
        #expect(try permissions(path + "-shm") == 0o600)
    }

    @Test func opensInAFolderThatDoesNotExistYetCreatingItPrivate() throws {
        // Given a path three folders below an existing one (a fresh app container)
        let directory = TemporaryDirectory()
        let path = directory.path("Library/Application Support/PaywallAnalytics/events.sqlite")
        // When a connection opens it
        let connection = try Connection(path: path)
        try connection.execute("CREATE TABLE t (x INTEGER) STRICT; INSERT INTO t VALUES (1)")
        // Then the folders exist with mode 0700 and the file with 0600
        #expect(try permissions(directory.path("Library")) == 0o700)
        #expect(try permissions(directory.path("Library/Application Support")) == 0o700)
        #expect(try permissions(directory.path("Library/Application Support/PaywallAnalytics")) == 0o700)
        #expect(try permissions(path) == 0o600)
        // And a read-only open of a missing path still creates nothing
        let missing = directory.path("elsewhere/events.sqlite")
        let error = #expect(throws: StorageError.self) {
            _ = try Connection(path: missing, options: OpenOptions(readOnly: true, create: false))
        }
        #expect(error?.kind == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: directory.path("elsewhere")))
    }

    @Test func keepsTheModeOfAnExistingFile() throws {
        // Given an existing empty file with mode 0640
        let directory = TemporaryDirectory()
        let path = directory.path("existing.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        // When a connection opens it
        _ = try Connection(path: path)
        // Then its mode is left as the owner chose
        #expect(try permissions(path) == 0o640)
    }

    @Test func usesWALWithNormalSynchronous() throws {
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("wal.sqlite"))
        #expect(try connection.scalar("PRAGMA journal_mode")?.string == "wal")
        #expect(try connection.scalar("PRAGMA synchronous")?.int64 == 1)
    }

    @Test func aWriterWaitingForTheLockFailsAsBusyAfterItsTimeout() throws {
        // Given a connection holding the write lock
        let directory = TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let holder = try Connection(path: path)
        try holder.execute("CREATE TABLE t (x)")
        try holder.execute("BEGIN IMMEDIATE")
        // When another connection with a 50 ms timeout asks for it
        let waiter = try Connection(path: path, options: OpenOptions(busyTimeoutMilliseconds: 50))
        // Then it gives up with a busy error
        #expect {
            try waiter.execute("BEGIN IMMEDIATE")
        } throws: { ($0 as? StorageError)?.kind == .busy }
        try holder.execute("COMMIT")
    }

    @Test func aWriterWaitingForTheLockGetsItOnceItIsReleased() throws {
        // Given a connection holding the write lock and another asking for it with a long timeout
        let directory = TemporaryDirectory()
        let path = directory.path("wait.sqlite")
        let holder = try Connection(path: path)
        try holder.execute("CREATE TABLE t (x)")
        try holder.execute("BEGIN IMMEDIATE")
        try holder.execute("INSERT INTO t VALUES (1)")
        let waiter = try Connection(path: path, options: OpenOptions(busyTimeoutMilliseconds: 600_000))
        let asking = DispatchSemaphore(value: 0)
        let outcome = Lock<Result<Int64?, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            asking.signal()
            outcome.withLock { value in
                value = Result {
                    try waiter.transaction(.immediate) { db in
                        try db.run("INSERT INTO t VALUES (2)")
                        return try db.scalar("SELECT count(*) FROM t")?.int64
                    }
                }
            }
            finished.signal()
        }
        thread.start()
        asking.wait()
        // When the waiter has tried again at least once (it is waiting for the lock) and the holder commits
        let deadline = ContinuousClock.now.advanced(by: .seconds(300))
        while waiter.busyWait.retries == 0, ContinuousClock.now < deadline { usleep(1_000) }
        #expect(waiter.busyWait.retries > 0, "the waiter never waited for the lock")
        try holder.execute("COMMIT")
        // Then the waiter's transaction runs after it and sees its row
        finished.wait()
        #expect(try outcome.withLock { try $0?.get() } == 2)
    }

    @Test func bindsAndReadsEveryTypeIncludingNull() throws {
        // Given a table with one column per storage class
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("types.sqlite"))
        try connection.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let blob = Data([0, 1, 2, 255])
        // When a row is written with typed bindings
        try connection.withDatabase { db in
            let insert = try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            insert.bind(Int64.min, at: 1)
            insert.bind(0.25 as Double?, at: 2)
            insert.bind("héllo ✓" as String?, at: 3)
            insert.bind(blob as Data?, at: 4)
            insert.bind(nil as String?, at: 5)
            try insert.run()
            try db.run(
                "INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(7), .real(nil), .text(""), .blob(Data()), .null])
        }
        // Then every value reads back with its type
        let rows = try connection.all("SELECT i, r, s, b, n FROM t ORDER BY rowid") { row in
            [row.value(at: 0), row.value(at: 1), row.value(at: 2), row.value(at: 3), row.value(at: 4)]
        }
        #expect(rows[0] == [.integer(Int64.min), .real(0.25), .text("héllo ✓"), .blob(blob), .null])
        #expect(rows[1] == [.integer(7), .null, .text(""), .blob(Data()), .null])
    }

    @Test func streamsRowsAndStopsEarly() throws {
        // Given 5,000 rows
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("stream.sqlite"))
        try connection.transaction { db in
            try db.execute("CREATE TABLE t (x INTEGER)")
            let insert = try db.cachedStatement("INSERT INTO t VALUES (?)")
            for value in 0..<5_000 {
                insert.bind(Int64(value), at: 1)
                try insert.run()
            }
        }
        // When they are streamed, stopping after 100
        var seen: [Int64] = []
        try connection.withDatabase { db in
            try db.forEachRow("SELECT x FROM t ORDER BY x") { row in
                seen.append(row.int64(at: 0))
                return seen.count < 100
            }
        }
        // Then exactly the first 100 were read, and the statement is reusable afterwards
        #expect(seen == Array(0..<100))
        #expect(try connection.scalar("SELECT count(*) FROM t ORDER BY x")?.int64 == 5_000)
    }

    @Test func cachesStatementsBySQL() throws {
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("cache.sqlite"))
        try connection.withDatabase { db in
            let first = try db.cachedStatement("SELECT 1")
            let second = try db.cachedStatement("SELECT 1")
            let other = try db.cachedStatement("SELECT 2")
            #expect(first === second)
            #expect(first !== other)
        }
    }

    @Test func rollsBackATransactionThatThrows() throws {
        // Given a table with one row
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("rollback.sqlite"))
        try connection.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try connection.run("INSERT INTO t VALUES (1)")
        // When a transaction inserts a row and then fails on a duplicate key
        let error = #expect(throws: StorageError.self) {
            try connection.transaction { db in
                try db.run("INSERT INTO t VALUES (2)")
                try db.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.kind == .constraint)
        // Then nothing of it remains and the connection is usable
        #expect(try connection.scalar("SELECT count(*) FROM t")?.int64 == 1)
        try connection.run("INSERT INTO t VALUES (3)")
    }
}
