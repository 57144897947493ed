import Foundation
import PaywallTestSupport
import Testing

enum Sample {
    static func shown(_ n: Int, source: String = "onboarding") -> String {
        #"{"id":"01936B2A-7C00-7000-8000-\#(String(format: "%012d", n))","name":"paywall_shown","occurred_at":1764400000000,"user_id":"u\#(n)","catalog_version":1,"pw_id":"01936B2A-7000-7000-8000-\#(String(format: "%012d", n))","source":"\#(source)"}"#
    }
    static let badLines = [
        "not json",
        #"{"id":"x","name":"paywall_shown"}"#,
    ]
}

struct ImportAndStatsCommandTests {
    let cli = try! CommandRunner()

    @Test func importStoresGoodLinesQuarantinesBadOnesAndExits65() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let file = try scratch.write(
            "a.ndjson", ([Sample.shown(1), Sample.shown(2)] + Sample.badLines).joined(separator: "\n") + "\n")
        let db = scratch.path("events.sqlite")
        let first = try await cli.run(["import", file, "--db", db])
        #expect(first.status == 65)
        #expect(first.stdout == "imported 2, duplicates 0, conflicts 0, quarantined 2\n")
        #expect(first.stderr.contains("2 lines quarantined"))
        let again = try await cli.run(["import", file, "--db", db])
        #expect(again.stdout.hasPrefix("imported 0, duplicates 2,"))
        let stats = try await cli.run(["stats", "--db", db])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("Events: 2 from 2025-11-29T07:06:40Z"))
        #expect(stats.stdout.contains("  paywall_shown               2\n"))
        #expect(stats.stdout.contains("RevenueCat outbox: 2 pending, 0 delivered, 0 dead-lettered"))
        let mode = try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func importReadsStandardInputAndHonoursNoForward() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let result = try await cli.run(
            ["import", "-", "--no-forward", "--db", db], stdin: Data((Sample.shown(7) + "\n").utf8))
        #expect(result.status == 0)
        #expect(result.stdout == "imported 1, duplicates 0, conflicts 0, quarantined 0\n")
        let stats = try await cli.run(["stats"], environment: ["PAYWALL_ANALYTICS_DB": db])
        #expect(stats.stdout.contains("RevenueCat outbox: 0 pending, 1 delivered"))
    }

    @Test func missingInputsExit66() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let missing = try await cli.run(["import", scratch.path("nope.ndjson"), "--db", scratch.path("e.sqlite")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("does not exist"))
        let noDatabase = try await cli.run(["stats", "--db", scratch.path("absent.sqlite")])
        #expect(noDatabase.status == 66)
        #expect(noDatabase.stderr.contains("no events database at"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("absent.sqlite")), "stats creates nothing")
        let noFile = try await cli.run(["import", "--db", scratch.path("e.sqlite")])
        #expect(noFile.status == 64)
    }

    @Test func aGarbageDatabaseIsRefusedAndLeftUntouched() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: scratch.url.appendingPathComponent("g.sqlite"))
        let result = try await cli.run(["stats", "--db", scratch.path("g.sqlite")])
        #expect(result.status == 65)
        #expect(result.stderr.contains("not a valid SQLite database"))
        #expect(try Data(contentsOf: scratch.url.appendingPathComponent("g.sqlite")) == garbage)
    }

    @Test func aDatabaseLockedByAnotherProcessExits75() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let file = try scratch.write("a.ndjson", Sample.shown(1) + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        // Another process takes the write lock and holds it until its standard input closes
        // (after the import gave up), so the hold outlasts the 5 s busy timeout however slow the machine.
        let holder = Python.process([
            "-c",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('BEGIN EXCLUSIVE')
            print('locked', flush=True)
            sys.stdin.read()
            """, db,
        ])
        let ready = Pipe()
        let release = Pipe()
        holder.standardOutput = ready
        holder.standardInput = release
        try holder.run()
        defer {
            try? release.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        #expect(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
        let second = try scratch.write("b.ndjson", Sample.shown(2) + "\n")
        let result = try await cli.run(["import", second, "--db", db])
        #expect(result.status == 75)
        #expect(result.stderr.contains("locked by another connection or process"))
    }
}
