import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 5: an SQLite file of another program is never taken for a store. Every command
/// refuses it (exit 65, "… is an SQLite database but not a PaywallAnalytics store …, choose another
/// --db") and leaves it byte for byte and mtime identical, with no -wal, -shm or -journal; `import`
/// of such a file refuses it the same way. A zero-length file still becomes a store, and an older
/// unmarked store of ours is upgraded and marked with the application id (`SchemaTests`).
struct ForeignDatabaseTests {
    let cli = try! CommandRunner()
    static let sqlite = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/env"))
    /// The store's `PRAGMA application_id` (0x5057414E, "PWAN").
    static let applicationID = 1_347_895_630

    /// Kinds of foreign file, each made by the sqlite3 tool (in rollback-journal mode but one).
    static let foreign: [String: String] = [
        "a table": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ann');",
        "user_version 3": "PRAGMA user_version = 3;",
        "another application_id": "PRAGMA application_id = 1234; CREATE TABLE t (x);",
        "look-alike tables": "CREATE TABLE events (id, name); CREATE TABLE meta (key, value); PRAGMA user_version = 3;",
        "our application_id's neighbour": "PRAGMA application_id = 1347895631;",
        "WAL mode": "PRAGMA journal_mode = WAL; CREATE TABLE users (id); INSERT INTO users VALUES (1);",
    ]

    static func make(_ scratch: TemporaryDirectory, _ kind: String) async throws -> String {
        let db = scratch.path("app.sqlite")
        let made = try await sqlite.run(["sqlite3", db, foreign[kind]!])
        try #require(made.status == 0, "the sqlite3 tool is needed (apt-get install -y sqlite3): \(made.stderr)")
        return db
    }

    static let commands: [[String]] = [
        ["stats"], ["import", "IN"], ["import", "-"], ["forward", "--endpoint", "http://127.0.0.1:9"],
        ["report", "--nightly", "--out", "OUT"],
        ["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", "OUT"],
        ["export", "events", "--out", "OUT.csv"], ["export", "funnels", "--out", "-"],
        ["demo", "--customers", "10", "--days", "1", "--out", "OUT", "--quiet"],
        ["forget", "--user", "someone"], ["export", "events", "--user", "someone", "--format", "ndjson", "--out", "-"],
    ]

    static let cases: [(String, [String])] = foreign.keys.sorted().flatMap { kind in commands.map { (kind, $0) } }

    struct Snapshot: Equatable {
        var bytes: Data
        var modified: Date?
        init(_ path: String) throws {
            bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        }
    }

    func expectUntouched(_ db: String, _ before: Snapshot, _ label: String) throws {
        #expect(try Snapshot(db) == before, "\(label) changed the file")
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: db + suffix), "\(label) left \(suffix)")
        }
    }

    @Test(arguments: cases)
    func everyCommandRefusesAForeignDatabaseAndLeavesItUntouched(kind: String, command: [String]) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await Self.make(scratch, kind)
        let before = try Snapshot(db)
        let input = try scratch.write("in.ndjson", Sample.shown(1) + "\n")
        let arguments = command.map {
            $0 == "IN" ? input : $0.replacingOccurrences(of: "OUT", with: scratch.path("out"))
        }
        let result = try await cli.run(
            arguments + ["--db", db], stdin: Data((Sample.shown(2) + "\n").utf8),
            environment: ["REVENUECAT_API_KEY": "appl_ForeignDatabaseTestKey1"])
        let label = "\(kind), \(command)"
        #expect(result.status == 65, "\(label): exit \(result.status), \(result.stdout)\(result.stderr)")
        #expect(
            result.stderr.contains("\(db): the file is an SQLite database but not a PaywallAnalytics store"),
            "\(label): \(result.stderr)")
        #expect(
            result.stderr.contains("left untouched") && result.stderr.contains("--db"), "\(label): \(result.stderr)")
        try expectUntouched(db, before, label)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "\(label) wrote output")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.csv")), "\(label) wrote output")
    }

    @Test(arguments: foreign.keys.sorted())
    func importOfAForeignDatabaseFileIsRefusedAndLeavesItUntouched(kind: String) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let foreignFile = try await Self.make(scratch, kind)
        let before = try Snapshot(foreignFile)
        let result = try await cli.run(["import", foreignFile, "--db", scratch.path("store.sqlite")])
        #expect(result.status == 65, "\(kind): \(result.stderr)")
        #expect(
            result.stderr.contains("it is an SQLite file but not a PaywallAnalytics store"), "\(kind): \(result.stderr)"
        )
        #expect(result.stderr.contains("left untouched"), "\(kind): \(result.stderr)")
        try expectUntouched(foreignFile, before, "import \(kind)")
    }

    @Test func theDemoNeverRecreatesAForeignFileUnderItsDefaultName() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("paywall-demo.sqlite")
        #expect(try await Self.sqlite.run(["sqlite3", db, Self.foreign["a table"]!]).status == 0)
        let before = try Snapshot(db)
        let result = try await cli.run(["demo", "--customers", "10", "--days", "1", "--quiet"], directory: scratch.url)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("not a PaywallAnalytics store"), "\(result.stderr)")
        try expectUntouched(db, before, "demo")
    }

    @Test func aZeroLengthFileBecomesAMarkedStore() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try scratch.write("empty.sqlite", "")
        let input = try scratch.write("in.ndjson", Sample.shown(1) + "\n")
        let result = try await cli.run(["import", input, "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        let id = try await Self.sqlite.run(["sqlite3", db, "PRAGMA application_id"])
        #expect(id.stdout == "\(Self.applicationID)\n")
    }
}
