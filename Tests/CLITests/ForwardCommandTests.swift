import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

struct ForwardCommandTests {
    let cli = try! CommandRunner()
    static let key = "appl_CliTestKey0123456789"

    /// A database holding `count` impressions, imported through the CLI.
    func database(impressions count: Int, in scratch: TemporaryDirectory, name: String = "events.sqlite") async throws
        -> String
    {
        let db = scratch.path(name)
        let file = try scratch.write("i.ndjson", (1...count).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        return db
    }

    func forward(
        _ db: String, _ standIn: RevenueCatStandIn, _ extra: [String] = [],
        key: String = ForwardCommandTests.key
    ) async throws -> CommandRunner.Output {
        try await cli.run(
            ["forward", "--db", db, "--endpoint", standIn.baseURL.absoluteString] + extra,
            environment: ["REVENUECAT_API_KEY": key])
    }

    @Test func deliversInBatchesUpToTheLimitThenTheRest() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 120, in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let first = try await forward(db, standIn, ["--max-batches", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout.hasPrefix("delivered 100, will retry 0, dead-lettered 0 (2 requests; batch limit reached)"))
        #expect(first.stdout.contains("more impressions are pending"))
        let second = try await forward(db, standIn)
        #expect(second.stdout.hasPrefix("delivered 20,"))
        #expect(standIn.acceptedEventIDs.count == 120)
        #expect(standIn.violations.isEmpty)
        #expect(
            try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 0 pending, 120 delivered"))
        for output in [first, second] { #expect(!(output.stdout + output.stderr).contains(Self.key)) }
    }

    @Test func aNetworkErrorNamesTheHostAndPortItTried() async throws {
        // Given a RevenueCat endpoint that refuses connections (a stand-in stopped, its port closed)
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 3, in: scratch)
        let standIn = try RevenueCatStandIn()
        standIn.stop()
        let port = try #require(standIn.baseURL.port)
        let result = try await forward(db, standIn)
        // Then it exits 69 and says where it tried to connect, in words
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains("cannot connect to RevenueCat at 127.0.0.1:\(port) (connection refused"),
            "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("URLError"))
        #expect(try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 3 pending"))
    }

    @Test func everyRequestSaysWhetherItIsSandbox() async throws {
        // Given three databases of impressions, forwarded with a production key, with --sandbox,
        // and with a Test Store key
        let scratch = TemporaryDirectory(prefix: "cli")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let runs: [([String], String)] = [
            ([], Self.key), (["--sandbox"], Self.key), ([], "test_CliTestStoreKey0123456789"),
        ]
        for (index, (extra, key)) in runs.enumerated() {
            let db = try await database(impressions: 3, in: scratch, name: "events-\(index).sqlite")
            let run = try await forward(db, standIn, extra, key: key)
            #expect(run.status == 0, "\(run.stderr)")
        }
        // Then X-Is-Sandbox is false, true, true
        #expect(standIn.exchanges.map { $0.request.header("X-Is-Sandbox") } == ["false", "true", "true"])
        #expect(standIn.violations.isEmpty)
    }

    @Test func refusalsAreDeadLetteredAndCanBeRequeued() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 30, in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(401, body: "{\"message\":\"invalid key \(Self.key)\"}"))
        let refused = try await forward(db, standIn)
        #expect(refused.status == 65, "a run in which RevenueCat refused impressions is not a success")
        #expect(refused.stdout.hasPrefix("delivered 0, will retry 0, dead-lettered 30"))
        #expect(
            refused.stderr.contains(
                "RevenueCat refused the API key (HTTP 401): 30 impressions went to the dead letters"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("REVENUECAT_API_KEY") && refused.stderr.contains("--requeue-dead-letters"))
        let stats = try await cli.run(["stats", "--db", db]).stdout
        #expect(stats.contains("30 dead-lettered") && stats.contains("Dead letters: 30"))
        let requeued = try await forward(db, standIn, ["--requeue-dead-letters"])
        #expect(requeued.stdout.hasPrefix("requeued 30 dead letters\ndelivered 30,"))
        #expect(!(refused.stdout + refused.stderr + requeued.stdout).contains(Self.key))
        for file in [db, db + "-wal", db + "-shm"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(Self.key.utf8)) == nil, "the key never reaches \(file)")
        }
    }

    @Test(arguments: [400, 403, 422])
    func everyRefusalExits65AndSaysHowManyWereRefused(status: Int) async throws {
        // Given 60 impressions and RevenueCat refusing the first batch of 50 and accepting the next
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 60, in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(status, body: "{\"message\":\"no\"}"))
        // When forward runs
        let result = try await forward(db, standIn)
        // Then it exits 65 and stderr counts the refused impressions, naming the key only for 403
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("delivered 10, will retry 0, dead-lettered 50"))
        if status == 403 {
            #expect(
                result.stderr.contains(
                    "RevenueCat refused the API key (HTTP 403): 50 impressions went to the dead letters"))
        } else {
            #expect(result.stderr.contains("RevenueCat refused 50 impressions (HTTP \(status))"), "\(result.stderr)")
            #expect(!result.stderr.contains("API key"))
        }
        // And a later run with nothing refused exits 0 again
        let again = try await forward(db, standIn)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
    }

    @Test func anUnavailableRevenueCatExits69AndKeepsEverything() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 10, in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(503))
        let result = try await forward(db, standIn)
        #expect(result.status == 69)
        #expect(result.stdout.contains("will retry 10"))
        #expect(result.stderr.contains("retried by the next run"))
        #expect(try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 10 pending"))
        let unreachable = try await cli.run(
            ["forward", "--db", scratch.path("other.sqlite"), "--endpoint", "http://127.0.0.1:9"],
            environment: ["REVENUECAT_API_KEY": Self.key])
        #expect(unreachable.status == 66, "a database that does not exist is missing input, and nothing is created")
    }

    @Test(arguments: ["", "YOUR_REVENUECAT_API_KEY_HERE", "test_YOUR_TEST_KEY_HERE"])
    func aMissingOrPlaceholderKeyExits64AndSendsNothing(key: String) async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 3, in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let result = try await forward(db, standIn, key: key)
        #expect(result.status == 64)
        #expect(result.stderr.contains("REVENUECAT_API_KEY"))
        #expect(standIn.requestCount == 0)
        #expect(try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 3 pending"))
    }

    @Test func badOptionsAreUsageErrors() async throws {
        for arguments in [["forward", "--endpoint", "ftp://x"], ["forward", "--max-batches", "0"]] {
            let result = try await cli.run(arguments, environment: ["REVENUECAT_API_KEY": Self.key])
            #expect(result.status == 64)
        }
    }

    @Test func aStoredRowWithAnUnknownNameStopsThePassWithExit65AndSendsNothing() async throws {
        // Given pending impressions, one of them renamed by hand to a name the catalog lacks
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await database(impressions: 5, in: scratch)
        let connection = try Connection(path: db)
        let renamed = try #require(try connection.scalar("SELECT id FROM events ORDER BY seq LIMIT 1 OFFSET 2")?.string)
        try connection.run("UPDATE events SET name = 'paywall_teleported' WHERE id = ?1", [.text(renamed)])
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        // When forward runs
        let result = try await forward(db, standIn)
        // Then it exits 65 (bad data) naming the row, the value and what to do, and sends nothing
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains(renamed), "\(result.stderr)")
        #expect(result.stderr.contains("'paywall_teleported' in its name column"), "\(result.stderr)")
        #expect(result.stderr.contains("Fix or delete that row"), "\(result.stderr)")
        #expect(standIn.requestCount == 0)
        // And every impression is still pending, the renamed row untouched
        #expect(try connection.scalar("SELECT count(*) FROM outbox")?.int64 == 5)
        #expect(
            try connection.scalar("SELECT name FROM events WHERE id = ?1", [.text(renamed)])?.string
                == "paywall_teleported")
    }
}
