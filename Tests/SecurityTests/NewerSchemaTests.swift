import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: a database written by a newer version of the tool (a higher `PRAGMA user_version`)
/// is refused by every command that opens it, and left byte-for-byte as it was, with no -wal, -shm or
/// -journal created beside it.
struct NewerSchemaTests {
    let cli = try! CommandRunner()

    /// A real store (20 impressions, forwarded state pending) whose user_version is then raised to 999.
    static func newerDatabase(_ scratch: TemporaryDirectory, cli: CommandRunner) async throws -> String {
        let db = scratch.path("future.sqlite")
        let input = try scratch.write("in.ndjson", (1...20).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        let sqlite = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/env"))
        let bump = try await sqlite.run(["sqlite3", db, "PRAGMA journal_mode=DELETE; PRAGMA user_version = 999;"])
        try #require(bump.status == 0, "the sqlite3 tool is needed (apt-get install -y sqlite3): \(bump.stderr)")
        return db
    }

    static let commands: [[String]] = [
        ["stats"], ["import", "IN"], ["import", "-"], ["forward", "--endpoint", "http://127.0.0.1:9"],
        ["forward", "--endpoint", "http://127.0.0.1:9", "--requeue-dead-letters"],
        ["report", "--nightly", "--out", "OUT"],
        ["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", "OUT"],
        ["export", "events", "--out", "OUT/e.csv"], ["export", "funnels", "--out", "-"],
        ["export", "quarantine", "--out", "-"], ["export", "dead-letters", "--out", "-"],
        ["demo", "--customers", "10", "--days", "1", "--out", "OUT", "--quiet"],
        ["forget", "--user", "someone"], ["forget", "--user", "someone", "--allow-again"],
    ]

    @Test(arguments: commands)
    func everyCommandRefusesANewerDatabaseAndLeavesItUntouched(command: [String]) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await Self.newerDatabase(scratch, cli: cli)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let modified = try FileManager.default.attributesOfItem(atPath: db)[.modificationDate] as? Date
        let input = try scratch.write("more.ndjson", Sample.shown(99) + "\n")
        let arguments = command.map {
            $0 == "IN" ? input : $0.replacingOccurrences(of: "OUT", with: scratch.path("out"))
        }
        let result = try await cli.run(
            arguments + ["--db", db], stdin: Data((Sample.shown(98) + "\n").utf8),
            environment: ["REVENUECAT_API_KEY": "appl_NewerSchemaTestKey123"])
        #expect(result.status == 65, "\(command): exit \(result.status), \(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("999"), "the message names the version found: \(result.stderr)")
        #expect(result.stderr.contains("Upgrade paywall-analytics"), "the message says what to do: \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "\(command) changed the database")
        #expect(try FileManager.default.attributesOfItem(atPath: db)[.modificationDate] as? Date == modified)
        for suffix in ["-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: db + suffix), "\(command) created \(suffix)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "\(command) wrote output")
    }
}
