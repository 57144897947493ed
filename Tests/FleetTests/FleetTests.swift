import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// The fleet, for real on 127.0.0.1: the built collector and 20 app installs (the facade as an app
/// uses it), 50 SIGKILLs or more of both at random, restarts; then the central store must hold
/// exactly the union of the installs' events, every impression in one delivery state, and the
/// central nightly report must equal a report over a store that imported every install's file.
/// `paywall-fleet` runs it and checks; this test also checks the files itself, and shows that the
/// checks fail on a damaged copy. `scripts/fleet-soak MINUTES` runs the same for longer.
@Suite(.serialized)
struct FleetTests {
    let directory = TemporaryDirectory(prefix: "fleet-tests")

    /// `kills: N SIGKILLs (I installs, C collector)` from the summary.
    static func kills(in summary: String) -> (total: Int, collector: Int)? {
        guard let line = summary.split(separator: "\n").first(where: { $0.hasPrefix("kills: ") }) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 3 ? (numbers[0], numbers[2]) : nil
    }

    static func ids(_ path: String) throws -> [String] {
        try Connection(path: path, options: .readOnly).all("SELECT id FROM events") { $0.string(at: 0) ?? "" }
    }

    /// Regular files of a report folder's current run, by name.
    static func currentRun(_ folder: String) throws -> [String: Data] {
        let current = folder + "/current"
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: current) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: current + "/" + name))
        }
        return files
    }

    /// (Async, with the waits on Dispatch threads: a synchronous test holds one of the concurrency
    /// pool's two threads for its minutes, and the rest of the parallel suite starved.)
    @Test func twentyInstallsAndTheCollectorKilledAtRandomLoseAndDuplicateNothing() async throws {
        // Given the fleet run: 20 installs, at least 50 SIGKILLs, then the drain and the checks
        let work = directory.path("fleet")
        let fleet = try CommandRunner(product: "paywall-fleet")
        let run = try await fleet.run([
            "run", "--installs", "20", "--kills", "50", "--minutes", "0",
            "--seed", String(UInt64.random(in: 1...UInt64(UInt32.max))), "--work", work,
        ])
        print(run.stdout)
        // Then every check of the driver passed, after 50 kills or more, some of the collector
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr.suffix(3_000))")
        #expect(run.stdout.contains("fleet: every check passed"))
        let kills = try #require(Self.kills(in: run.stdout))
        #expect(kills.total >= 50)
        #expect(kills.collector >= 3)

        // And, checked here too: the central store holds exactly the union of the installs' events
        let names = try FileManager.default.contentsOfDirectory(atPath: work)
        let installs = names.filter { $0.hasPrefix("install-") && $0.hasSuffix(".sqlite") }.map { work + "/" + $0 }
        #expect(installs.count == 20)
        var union: [String] = []
        for install in installs { union += try Self.ids(install) }
        let central = try Self.ids(work + "/central.sqlite")
        #expect(!union.isEmpty)
        #expect(central.count == union.count, "a duplicate or a loss")
        #expect(Set(central) == Set(union))
        #expect(Set(union).count == union.count)
        // And every central impression is in exactly one delivery state
        let states = try Connection(path: work + "/central.sqlite", options: .readOnly).scalar(
            """
            SELECT count(*) FROM events AS e WHERE e.name = 'paywall_shown'
              AND (SELECT count(*) FROM outbox WHERE event_rowid = e.rowid)
                + (SELECT count(*) FROM deliveries WHERE event_rowid = e.rowid)
                + EXISTS (SELECT 1 FROM dead_letters WHERE event_id = e.id AND requeued_at IS NULL) <> 1
            """)?.int64
        #expect(states == 0)
        // And the two nightly reports are equal byte for byte (run.json aside: its duration)
        let centralReport = try Self.currentRun(work + "/central-report")
        let referenceReport = try Self.currentRun(work + "/reference-report")
        #expect(centralReport.keys.sorted() == referenceReport.keys.sorted())
        #expect(centralReport.count >= 5)
        for (name, bytes) in centralReport where name != "run.json" {
            #expect(bytes == referenceReport[name], "\(name) differs")
        }

        // When a copy of the central store loses one event and one impression is in two states
        let copy = directory.path("damaged")
        try FileManager.default.copyItem(atPath: work, toPath: copy)
        let damaged = try Connection(path: copy + "/central.sqlite")
        try damaged.execute(
            "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events WHERE name = 'paywall_closed')")
        try damaged.execute(
            """
            INSERT INTO deliveries (event_rowid, occurred_at, delivered_at)
              SELECT event_rowid, occurred_at, 0 FROM outbox ORDER BY event_rowid LIMIT 1
            """)
        let check = try await fleet.run(["check", "--work", copy])
        // Then the checks fail, saying what is wrong
        #expect(check.status == 1)
        #expect(check.stdout.contains("missing from the central store (lost)"), "\(check.stdout)")
        #expect(check.stdout.contains("not in exactly one delivery state"), "\(check.stdout)")
    }
}
