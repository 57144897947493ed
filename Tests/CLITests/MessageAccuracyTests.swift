import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 17: messages say what is true. Out-of-range numbers name the bound, real dates
/// are never called "not a date", nothing scheduled is never printed as 1970, stats counts only
/// open dead letters, a directory given as --db is called a directory, and run.json's duration is
/// real time even under --now.
struct MessageAccuracyTests {
    let cli = try! CommandRunner()

    func store(_ scratch: TemporaryDirectory, impressions: Int = 3) async throws -> String {
        let db = scratch.path("events.sqlite")
        let file = try scratch.write(
            "i.ndjson", (1...impressions).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        return db
    }

    @Test(arguments: [
        (
            ["--nightly", "--days", "2000000"],
            "--days 2000000 reaches back before 1970-01-01, where reports start; give at most "
        ),
        (
            ["--nightly", "--days", "1000000"],
            "--days 1000000 reaches back before 1970-01-01, where reports start; give at most "
        ),
        (["--nightly", "--days", "99999999999999999999999"], "reaches back before 1970-01-01"),
        (
            ["--from", "1582-10-10", "--to", "2020-01-01"],
            "1582-10-10 is outside the dates reports cover, 1970-01-01 to 9999-12-31"
        ),
        (["--from", "1969-12-31", "--to", "2020-01-01"], "1969-12-31 is outside the dates reports cover"),
        (["--from", "2020-01-01", "--to", "10000-01-01"], "10000-01-01 is outside the dates reports cover"),
        (
            ["--from", "2020-01-01", "--to", "2020-01-03", "--cohort-window", "1000d"],
            "'1000d' is over the cohort window's cap of 366 days"
        ),
        (
            ["--from", "2020-01-01", "--to", "2020-01-03", "--cohort-window", "8785h"],
            "'8785h' is over the cohort window's cap of 366 days"
        ),
        (
            ["--from", "2020-01-01", "--to", "2020-01-03", "--cohort-window", "99999999999999999999d"],
            "over the cohort window's cap"
        ),
    ])
    func outOfRangeValuesNameTheBound(arguments: [String], message: String) async throws {
        // Given a store, When report runs with a value outside what is supported
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch)
        let result = try await cli.run(
            ["report"] + arguments + ["--out", scratch.path("out"), "--db", db, "--now", "2026-12-01T02:00:00Z"])
        // Then it is a usage error that names the bound, never "not a date" or "not a duration", and a
        // year is never printed without its sign
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains("not a date") && !result.stderr.contains("not a duration"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))
    }

    @Test(arguments: [
        "9223372036854775807", "99999999999999999999", "-1", "-99999999999999", "10000-01-01T00:00:00Z",
        "1969-12-31T23:00:00Z",
    ])
    func aNowOutsideTheSupportedTimesIsRefused(now: String) async throws {
        // Given a store, When the nightly job runs with --now outside 1970…9999 (Int64.max once crashed it)
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch)
        let result = try await cli.run(["report", "--nightly", "--out", scratch.path("out"), "--db", db, "--now", now])
        // Then it is a usage error naming the supported times
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(
            result.stderr.contains(
                "--now \(now) is outside the times reports cover, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"))
    }

    @Test func theLargestAllowedDaysStillRuns() async throws {
        // Given --days equal to every day since 1970-01-01 up to --now (20,789 on 2026-12-01)
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch)
        let refused = try await cli.run([
            "report", "--nightly", "--days", "20790", "--out", scratch.path("out"), "--db", db,
            "--now", "2026-12-01T02:00:00Z",
        ])
        #expect(refused.status == 64 && refused.stderr.contains("give at most 20789"), "\(refused.stderr)")
        let result = try await cli.run([
            "report", "--nightly", "--days", "20789", "--out", scratch.path("out"), "--db", db,
            "--now", "2026-12-01T02:00:00Z",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote 1970-01-01 to 2026-12-01"), "\(result.stdout)")
    }

    @Test func forwardNeverPrintsTheEpochAsTheNextAttempt() async throws {
        // Given 120 impressions and a RevenueCat accepting everything
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch, impressions: 120)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let environment = ["REVENUECAT_API_KEY": "appl_MessageTests0123456789"]
        let endpoint = standIn.baseURL.absoluteString
        // When forward stops at its batch limit with impressions due, then delivers the rest, then has nothing to do
        let limited = try await cli.run(
            ["forward", "--db", db, "--endpoint", endpoint, "--max-batches", "1"], environment: environment)
        let rest = try await cli.run(["forward", "--db", db, "--endpoint", endpoint], environment: environment)
        let idle = try await cli.run(["forward", "--db", db, "--endpoint", endpoint], environment: environment)
        // Then no run names 1970 as a time, the limited run says more is pending, the others that nothing is
        for output in [limited, rest, idle] {
            #expect(output.status == 0, "\(output.stderr)")
            #expect(!output.stdout.contains("1970"), "\(output.stdout)")
        }
        #expect(limited.stdout.contains("more impressions are pending"))
        #expect(
            rest.stdout.contains("nothing is pending") && idle.stdout.contains("nothing is pending"), "\(rest.stdout)")
    }

    @Test func statsCountsOnlyOpenDeadLetters() async throws {
        // Given 30 impressions refused (401), then requeued and delivered
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch, impressions: 30)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(401))
        let environment = ["REVENUECAT_API_KEY": "appl_MessageTests0123456789"]
        let endpoint = standIn.baseURL.absoluteString
        #expect(
            try await cli.run(["forward", "--db", db, "--endpoint", endpoint], environment: environment).status == 65)
        let refused = try await cli.run(["stats", "--db", db]).stdout
        #expect(refused.contains("Dead letters: 30 open\n"), "\(refused)")
        // When they are requeued and delivered
        #expect(
            try await cli.run(
                ["forward", "--db", db, "--endpoint", endpoint, "--requeue-dead-letters"], environment: environment
            ).status == 0)
        // Then stats shows no open dead letter, and the requeued ones as labelled history
        let stats = try await cli.run(["stats", "--db", db]).stdout
        #expect(stats.contains("0 pending, 30 delivered, 0 dead-lettered"), "\(stats)")
        #expect(stats.contains("Dead letters: 0 open (history: 30 requeued earlier)"), "\(stats)")
    }

    @Test(arguments: [
        (["stats"], Int32(66)), (["import", "-"], Int32(73)), (["export", "events", "--out", "-"], Int32(66)),
        (["report", "--nightly", "--out", "r"], Int32(66)),
    ])
    func aDirectoryAsTheDatabaseIsCalledADirectory(arguments: [String], status: Int32) async throws {
        // Given --db naming an existing directory
        let scratch = TemporaryDirectory(prefix: "cli")
        let folder = scratch.path("store")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // When a command runs on it / Then it says the path is a directory and shows a file path to use
        let result = try await cli.run(arguments + ["--db", folder], directory: scratch.url)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains("\(folder) is a directory, not a database file"), "\(result.stderr)")
        #expect(result.stderr.contains("\(folder)/events.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing was created in it")
    }

    @Test func runJSONDurationIsRealTimeUnderNow() async throws {
        // Given a store, When the nightly job runs with --now fixed in the past
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(scratch, impressions: 50)
        let started = ContinuousClock.now
        let result = try await cli.run([
            "report", "--nightly", "--out", scratch.path("out"), "--db", db, "--now", "2025-12-01T02:00:00Z",
        ])
        let wall = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        // Then duration_ms is measured (at least 1 ms) and no longer than the whole process took
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch.path("out/run.json"))))
            as? [String: Any]
        let duration = try #require(json?["duration_ms"] as? Int)
        #expect(duration >= 1 && Int64(duration) <= wall.components.seconds * 1000 + 1000, "\(duration) ms")
        #expect(json?["started_at"] as? Int == 1_764_554_400_000, "started_at still follows --now")
    }
}
