import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `import --revenuecat FILE|-` and `forget --user`'s reach into subscription events, through the
/// built binary: bodies written after RevenueCat's documented samples, one per line.
struct RevenueCatImportCommandTests {
    let cli = try! CommandRunner()
    static let forgotten = "rc-forget-Zk81Qm"

    /// One webhook body on one line.
    static func body(_ id: String, type: String = "INITIAL_PURCHASE", user: String = "rc_cust_1", extra: String = "")
        -> String
    {
        #"{"api_version":"1.0","event":{"id":"\#(id)","type":"\#(type)","app_id":"app1","event_timestamp_ms":1764403200000,"app_user_id":"\#(user)","original_app_user_id":"\#(user)","aliases":["$RCAnonymousID:\#(id)"],"product_id":"pro.monthly","period_type":"NORMAL","purchased_at_ms":1764403190000,"expiration_at_ms":1767081600000,"environment":"PRODUCTION","store":"APP_STORE","transaction_id":"T\#(id)","original_transaction_id":"T\#(id)","presented_offering_id":"default","currency":"USD","price":4.99,"tax_percentage":0,"commission_percentage":0.3\#(extra)}}"#
    }

    func count(_ db: String, _ sql: String) throws -> Int64 {
        try Connection(path: db, options: OpenOptions(create: false)).scalar(sql)?.int64 ?? -1
    }

    @Test func importStoresNewEventsOnceQuarantinesBadLinesAndExits65() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-rc-import")
        let db = scratch.path("events.sqlite")
        let lines = [
            Self.body("EVT-1"),
            "",
            Self.body("EVT-2", type: "RENEWAL", extra: #","is_trial_conversion":true"#) + "\r",
            Self.body("EVT-1"),  // a redelivery
            #"{"api_version":"1.0","event":{"id":"EVT-3","type":"TEST","environment":"SANDBOX"}}"#,
            "not a webhook",
            Self.body("EVT-4", extra: #","price":"4.99""#),
        ]
        let file = try scratch.write("webhooks.ndjson", lines.joined(separator: "\n") + "\n")
        let first = try await cli.run(["import", "--revenuecat", file, "--db", db])
        #expect(first.status == 65, "\(first.stderr)")
        #expect(
            first.stdout == "subscription events: imported 3 (1 sandbox or TEST), duplicates 1, quarantined 2\n",
            "\(first.stdout)")
        #expect(first.stderr.contains("2 lines quarantined") && first.stderr.contains("export quarantine"))
        #expect(try count(db, "SELECT count(*) FROM subscription_events") == 3)
        #expect(try count(db, "SELECT price_micros FROM subscription_events WHERE id = 'EVT-2'") == 4_990_000)
        #expect(try count(db, "SELECT proceeds_micros FROM subscription_events WHERE id = 'EVT-2'") == 3_493_000)
        #expect(try count(db, "SELECT is_trial_conversion FROM subscription_events WHERE id = 'EVT-2'") == 1)
        let stats = try await cli.run(["stats", "--db", db])
        #expect(
            stats.stdout.contains(
                "Subscription events (RevenueCat webhooks): 3 stored, 1 of them sandbox or TEST; 3 customer keys\n"),
            "\(stats.stdout)")
        // The quarantine says where each bad line came from and why.
        let quarantine = try await cli.run(["export", "quarantine", "--out", "-", "--db", db])
        #expect(quarantine.status == 0)
        #expect(quarantine.stdout.contains("revenuecat: \(file)"), "\(quarantine.stdout)")
        #expect(quarantine.stdout.contains("event.price is a string, expected a number"))
        #expect(quarantine.stdout.contains("the body is not JSON"))
        // Importing the same file again stores nothing twice.
        let again = try await cli.run(["import", "--revenuecat", file, "--db", db])
        #expect(again.stdout == "subscription events: imported 0 (0 sandbox or TEST), duplicates 4, quarantined 2\n")
        #expect(try count(db, "SELECT count(*) FROM subscription_events") == 3)
        #expect(try count(db, "SELECT count(*) FROM quarantine") == 2)
    }

    @Test func standardInputImportsAndACleanImportExits0() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-rc-import")
        let db = scratch.path("events.sqlite")
        let input = Data(([Self.body("IN-1"), Self.body("IN-2")].joined(separator: "\n")).utf8)  // no final newline
        let result = try await cli.run(["import", "--revenuecat", "-", "--db", db], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "subscription events: imported 2 (0 sandbox or TEST), duplicates 0, quarantined 0\n")
        #expect(result.stderr.isEmpty)
        #expect(try count(db, "SELECT count(*) FROM subscription_customer_keys") == 4)
    }

    @Test func aMissingFileIs66AndMixingItWithNoForwardIsAUsageError() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-rc-import")
        let db = scratch.path("events.sqlite")
        let missing = try await cli.run(["import", "--revenuecat", scratch.path("nope.ndjson"), "--db", db])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("does not exist"))
        let folder = try await cli.run(["import", "--revenuecat", scratch.url.path, "--db", db])
        #expect(folder.status == 74, "\(folder.stderr)")
        // A store's file given by mistake is refused as a whole (exit 65), nothing of it quarantined.
        let store = scratch.path("other.sqlite")
        #expect(
            try await cli.run(["import", "--revenuecat", "-", "--db", store], stdin: Data(Self.body("S-1").utf8)).status
                == 0)
        let wrong = try await cli.run(["import", "--revenuecat", store, "--db", db])
        #expect(wrong.status == 65, "\(wrong.stderr)")
        #expect(
            wrong.stderr.contains("is an SQLite database") && wrong.stderr.contains("without --revenuecat"),
            "\(wrong.stderr)")
        #expect(try count(db, "SELECT count(*) FROM quarantine") == 0)
        let mixed = try await cli.run(["import", "--revenuecat", "--no-forward", "-", "--db", db])
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("--no-forward"))
    }

    @Test func forgetErasesTheCustomersSubscriptionEventsEverywhereAndRefusesTheirLaterWebhooks() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-rc-forget")
        let data = scratch.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let db = data.appendingPathComponent("events.sqlite").path
        let theirs = [
            Self.body("F-1", user: Self.forgotten),
            Self.body(
                "F-2", type: "RENEWAL", user: "rc_other_9", extra: #","transferred_from":["\#(Self.forgotten)"]"#),
            Self.body("F-3", user: Self.forgotten, extra: #","price":"bad""#),  // quarantined, names them
            Self.body("K-1", user: "rc_kept_7"),
        ]
        let file = try scratch.write("webhooks.ndjson", theirs.joined(separator: "\n") + "\n")
        var transcript = ""
        func run(_ arguments: [String], expect status: Int32 = 0) async throws -> CommandRunner.Output {
            let result = try await cli.run(arguments + ["--db", db], directory: scratch.url)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            transcript += result.stdout + "\n" + result.stderr + "\n"
            return result
        }
        _ = try await run(["import", "--revenuecat", file], expect: 65)
        #expect(try count(db, "SELECT count(*) FROM subscription_events") == 3)

        transcript = ""
        let forgot = try await run(["forget", "--user", Self.forgotten])
        #expect(forgot.stdout.contains("  subscription_events     2\n"), "\(forgot.stdout)")
        #expect(forgot.stdout.contains("  quarantine              1\n"), "\(forgot.stdout)")
        #expect(try count(db, "SELECT count(*) FROM subscription_events") == 1)
        #expect(try count(db, "SELECT count(*) FROM subscription_events WHERE id = 'K-1'") == 1)
        for what in ["quarantine", "events"] {
            _ = try await run(["export", what, "--out", data.appendingPathComponent("\(what).csv").path])
        }
        let holders = try ForgetCommandTests.holders(of: [Self.forgotten], in: data)
        #expect(holders.isEmpty, "\(holders)")
        #expect(!transcript.contains(Self.forgotten), "\(transcript)")

        // Their later webhooks are refused and counted.
        let later = try scratch.write(
            "later.ndjson",
            [
                Self.body("F-4", user: "rc_other_9", extra: #","aliases":["\#(Self.forgotten)"]"#),
                Self.body("K-2", user: "rc_kept_7"),
            ]
            .joined(separator: "\n") + "\n")
        let imported = try await run(["import", "--revenuecat", later])
        #expect(
            imported.stdout
                == "subscription events: imported 1 (0 sandbox or TEST), duplicates 0, quarantined 0, suppressed 1 (forgotten customers)\n"
        )
        let stats = try await run(["stats"])
        #expect(stats.stdout.contains("Suppressed (events of forgotten customers, not stored): 1;"), "\(stats.stdout)")
        _ = try await run(["forget", "--user", "nobody-at-all"])  // checkpoints the import's WAL
        #expect(try ForgetCommandTests.holders(of: [Self.forgotten], in: data).isEmpty)
    }
}

/// `import --revenuecat` killed with SIGKILL mid-import: whole batches are kept, and running the same
/// import again stores each event once.
struct RevenueCatImportKillTests {
    let cli = try! CommandRunner()

    @Test func aKilledImportKeepsWholeBatchesAndARerunStoresEachEventOnce() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-rc-kill")
        let db = scratch.path("events.sqlite")
        let lines = (0..<3_000).map {
            RevenueCatImportCommandTests.body(String(format: "KILL-%05d", $0), user: "kill_\($0 % 97)")
        }
        // Given an import reading standard input that has received 2,500 lines and waits for more
        let process = Process()
        process.executableURL = cli.executable
        process.arguments = ["import", "--revenuecat", "-", "--db", db]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((lines.prefix(2_500).joined(separator: "\n") + "\n").utf8))
        // When its first two batches (1,000 lines each) are committed, it is killed
        var stored: Int64 = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: db),
                let count = try? Connection(path: db, options: OpenOptions(create: false))
                    .scalar("SELECT count(*) FROM subscription_events")?.int64
            {
                stored = count
                if stored >= 2_000 { break }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        // Then exactly the whole batches are there, and the file is sound
        let check = try Connection(path: db, options: OpenOptions(create: false))
        #expect(try check.scalar("SELECT count(*) FROM subscription_events")?.int64 == 2_000)
        #expect(try check.scalar("PRAGMA integrity_check")?.string == "ok")
        // And the whole input again stores the rest, each event once
        let rerun = try await cli.run(
            ["import", "--revenuecat", "-", "--db", db], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(
            rerun.stdout == "subscription events: imported 1000 (0 sandbox or TEST), duplicates 2000, quarantined 0\n")
        #expect(try check.scalar("SELECT count(DISTINCT id) FROM subscription_events")?.int64 == 3_000)
    }
}
