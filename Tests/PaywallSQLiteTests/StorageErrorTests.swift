import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

struct StorageErrorTests {
    @Test func namesTheSQLButNeverTheBoundValues() throws {
        // Given a unique key holding a secret-looking user id
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("errors.sqlite"))
        try connection.execute("CREATE TABLE users (id TEXT PRIMARY KEY)")
        try connection.run("INSERT INTO users VALUES (?)", [.text("user-secret-42")])
        // When the same value is inserted again
        let error = try #require(throws: StorageError.self) {
            try connection.run("INSERT INTO users VALUES (?)", [.text("user-secret-42")])
        }
        // Then the error is a typed constraint failure naming the SQL, without the value
        #expect(error.kind == .constraint)
        #expect(error.code == 19)
        #expect(error.extendedCode == 1555)
        #expect(error.description.contains("INSERT INTO users VALUES (?)"))
        #expect(!error.description.contains("user-secret-42"))
    }

    @Test func refusesAFileOfGarbageAndLeavesItUntouched() throws {
        // Given a file of random bytes
        let directory = TemporaryDirectory()
        let path = directory.path("garbage.sqlite")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try bytes.write(to: URL(fileURLWithPath: path))
        // When it is opened
        let error = try #require(throws: StorageError.self) { _ = try Connection(path: path) }
        // Then the error says it is not a database, and the bytes are unchanged
        #expect(error.kind == .corrupt)
        #expect(error.description.contains("not a valid SQLite database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func reportsALockHeldByAnotherConnectionAsBusyAfterTheTimeout() throws {
        // Given one connection holding the write lock
        let directory = TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let holder = try Connection(path: path)
        try holder.execute("CREATE TABLE t (x INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let waiter = try Connection(path: path, options: OpenOptions(busyTimeoutMilliseconds: 100))
        // When a second connection tries to write
        let started = ContinuousClock.now
        let error = try #require(throws: StorageError.self) {
            try waiter.transaction { db in try db.run("INSERT INTO t VALUES (2)") }
        }
        // Then it waited about the busy timeout and failed with a typed, transient error
        #expect(ContinuousClock.now - started >= .milliseconds(90))
        #expect(error.kind == .busy)
        #expect(error.isTransient)
        #expect(error.description.contains("locked"))
        try holder.execute("COMMIT")
    }

    @Test func failsWithFullWhenThePageLimitIsReached() throws {
        // Given a database limited to its current size
        let directory = TemporaryDirectory()
        let connection = try Connection(path: directory.path("full.sqlite"))
        try connection.execute("CREATE TABLE t (x BLOB)")
        let pages = try #require(try connection.scalar("PRAGMA page_count")?.int64)
        try connection.execute("PRAGMA max_page_count = \(pages + 2)")
        // When more data is written than fits
        let error = try #require(throws: StorageError.self) {
            try connection.transaction { db in
                try db.run("INSERT INTO t VALUES (?)", [.blob(Data(count: 64 * 1024))])
            }
        }
        // Then the error is a typed "full" with advice
        #expect(error.kind == .full)
        #expect(error.description.contains("Free disk space"))
    }

    @Test func theSQLiteLayerNamesNoProductCommandOrFlag() {
        // Given an error of every kind
        let kinds: [StorageError.Kind] = [
            .full, .readOnly, .busy, .corrupt, .cannotOpen, .ioError, .constraint,
            .schemaTooNew(found: 9, known: 8), .foreignDatabase(expected: "store", reason: "it has the table t"),
            .walUnavailable(mode: "delete"), .other,
        ]
        for kind in kinds {
            let error = StorageError(code: 0, message: "m", kind: kind)
            // Then what it says is about SQLite, the file, the disk or the lock: no program is named and
            // no command or flag is suggested (a front end adds its own advice)
            for word in ["paywall", "Paywall", "--", "Upgrade", "run again", "bug in"] {
                #expect(!error.description.contains(word), "\(kind): \(error.description)")
            }
            #expect(!error.advice.isEmpty && error.description.hasSuffix(error.advice))
        }
        #expect(
            StorageError(code: 0, message: "", kind: .schemaTooNew(found: 9, known: 8)).description.contains(
                "version 9 but this program knows up to version 8"))
    }
}
