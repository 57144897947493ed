import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `forget --user` through the built binary, as an operator runs it: every trace of the customers
/// goes, no byte of any file written (database, -wal, -shm, reports, exports) nor any output holds
/// their ids, and their later events are refused and counted.
struct ForgetCommandTests {
    let cli = try! CommandRunner()
    static let erased = "forget-me-Qx7Lp2"
    static let second = "also-forgotten-Wd4"
    static let kept = "stays-Hn5Rc"

    /// NDJSON lines of one presentation (impression, plan, close) of `user`; `n` makes the ids unique.
    static func presentation(_ n: Int, user: String, at: Int64 = 1_764_400_000_000) -> [String] {
        let pw = String(format: "01936B2A-7000-7000-8000-%012d", n)
        func id(_ k: Int) -> String { String(format: "01936B2A-7C0\(k)-7000-8000-%012d", n) }
        return [
            #"{"id":"\#(id(0))","name":"paywall_shown","occurred_at":\#(at),"user_id":"\#(user)","catalog_version":1,"pw_id":"\#(pw)","source":"onboarding"}"#,
            #"{"id":"\#(id(1))","name":"paywall_plan_selected","occurred_at":\#(at + 1000),"user_id":"\#(user)","catalog_version":1,"pw_id":"\#(pw)","source":"onboarding","product":"pro"}"#,
            #"{"id":"\#(id(2))","name":"paywall_closed","occurred_at":\#(at + 5000),"user_id":"\#(user)","catalog_version":1,"pw_id":"\#(pw)","source":"onboarding","result":"purchased","via":"auto","open_s":5,"product":"pro"}"#,
        ]
    }

    /// Every regular file under `folder`, recursively.
    static func allFiles(_ folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.map { folder.appendingPathComponent($0).path }.filter { path in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.type]) as? FileAttributeType) == .typeRegular
        }
    }

    static func holders(of needles: [String], in folder: URL) throws -> [String] {
        try allFiles(folder).filter { file in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            return needles.contains { bytes.range(of: Data($0.utf8)) != nil }
        }
    }

    @Test func forgetErasesEveryTraceAndNoFileNorOutputHoldsTheIDs() async throws {
        // Given a store with two customers to forget and one to keep: impressions pending, delivered and
        // dead-lettered (RevenueCat's refusal quotes the id), quarantined lines of theirs, and report rollups
        let scratch = TemporaryDirectory(prefix: "cli")
        let data = scratch.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let db = data.appendingPathComponent("events.sqlite").path
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(400, body: #"{"message":"invalid app_user_id \#(Self.erased)"}"#))
        let environment = ["REVENUECAT_API_KEY": "appl_ForgetTestKey1234567"]
        let refused = try scratch.write(
            "refused.ndjson",
            (Self.presentation(1, user: Self.erased)
                + Self.presentation(2, user: Self.kept)).joined(separator: "\n") + "\n")
        let forwarded = try scratch.write(
            "forwarded.ndjson",
            (Self.presentation(3, user: Self.erased)
                + Self.presentation(4, user: Self.second) + Self.presentation(5, user: Self.kept)).joined(
                    separator: "\n") + "\n")
        let pending = try scratch.write(
            "pending.ndjson",
            (Self.presentation(6, user: Self.erased) + [
                #"{"name":"paywall_shown","user_id":"\#(Self.erased)"}"#,
                #"{"user_id": "\#(Self.second)", "name": broken"#,
            ] + Self.presentation(7, user: Self.kept)).joined(separator: "\n") + "\n")
        var transcript = ""
        func run(_ arguments: [String], expect status: Int32 = 0) async throws -> CommandRunner.Output {
            let result = try await cli.run(arguments + ["--db", db], environment: environment, directory: scratch.url)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            transcript += result.stdout + "\n" + result.stderr + "\n"  // outputs only (the arguments name the ids)
            return result
        }
        _ = try await run(["import", refused])
        _ = try await run(["forward", "--endpoint", standIn.baseURL.absoluteString], expect: 65)
        _ = try await run(["import", forwarded, "--no-forward"])
        _ = try await run(["import", pending], expect: 65)
        _ = try await run([
            "report", "--nightly", "--out", data.appendingPathComponent("before").path, "--now", "2025-12-01T02:00:00Z",
        ])
        #expect(try !Self.holders(of: [Self.erased, Self.second], in: data).isEmpty)

        // When both customers are forgotten
        transcript = ""
        let forgot = try await run(["forget", "--user", Self.erased, "--user", Self.second])

        // Then it says what it erased per table, never naming them
        #expect(forgot.stdout.contains("forgot 2 customers (ids are not shown); rows erased:\n"))
        for (table, rows) in [
            ("events", 12), ("quarantine", 2), ("outbox", 1), ("deliveries", 2), ("dead_letters", 1),
            ("dead_letters (reasons redacted)", 1), ("report_presentations", 4), ("report_customers", 2),
        ] {
            let cell = table.count < 24 ? table.padding(toLength: 24, withPad: " ", startingAt: 0) : table + " "
            #expect(
                forgot.stdout.contains("  " + cell + "\(rows)\n"),
                "\(table): \(forgot.stdout)")
        }
        #expect(forgot.stdout.contains("suppression list: 2 added"))
        // And the other customer's events are all there
        let stats = try await run(["stats"])
        #expect(stats.stdout.contains("Events: 9 "))
        #expect(stats.stdout.contains("Quarantined: 0"))
        // And after every command that writes files, no byte of any of them holds an erased id
        _ = try await run([
            "report", "--nightly", "--out", data.appendingPathComponent("after").path, "--now", "2025-12-01T02:00:00Z",
        ])
        for what in ["events", "quarantine", "dead-letters", "funnels"] {
            _ = try await run(["export", what, "--out", data.appendingPathComponent("\(what).csv").path])
        }
        _ = try await run([
            "export", "events", "--format", "ndjson", "--out", data.appendingPathComponent("events.ndjson").path,
        ])
        let holders = try Self.holders(of: [Self.erased, Self.second], in: data)
        #expect(holders.isEmpty, "\(holders)")
        #expect(Self.allFiles(data).contains(db) && Self.allFiles(data).count >= 20, "\(Self.allFiles(data))")
        #expect(!transcript.contains(Self.erased) && !transcript.contains(Self.second), "\(transcript)")
        let kept = try String(contentsOfFile: data.appendingPathComponent("events.csv").path, encoding: .utf8)
        #expect(kept.contains(Self.kept))

        // When their events arrive again (an import with a bad line of theirs)
        let late = try scratch.write(
            "late.ndjson",
            (Self.presentation(8, user: Self.erased)
                + [#"{"name":"paywall_shown","user_id":"\#(Self.second)"}"#] + Self.presentation(9, user: Self.kept))
                .joined(separator: "\n") + "\n")
        let imported = try await run(["import", late])
        // Then none is stored, each is counted as suppressed in the import, stats and data_quality.csv
        #expect(
            imported.stdout
                == "imported 3, duplicates 0, conflicts 0, quarantined 0, suppressed 4 (forgotten customers)\n")
        let after = try await run(["stats"])
        #expect(
            after.stdout.contains(
                "Suppressed (events of forgotten customers, not stored): 4; customers on the suppression list: 2"))
        _ = try await run([
            "report", "--from", "2025-11-01", "--to", "2026-12-31", "--out", data.appendingPathComponent("range").path,
        ])
        let quality = try String(
            contentsOfFile: data.appendingPathComponent("range/data_quality.csv").path, encoding: .utf8)
        #expect(quality.hasPrefix("date,events_stored,quarantined,dropped,suppressed,impressions_stored,"))
        #expect(
            quality.split(separator: "\r\n").dropFirst().map { Int($0.split(separator: ",")[4])! }.reduce(0, +) == 4)
        _ = try await run(["forget", "--user", "nobody-at-all"])  // checkpoints the import's WAL
        #expect(try Self.holders(of: [Self.erased, Self.second], in: data).isEmpty)

        // When one suppression is lifted, that customer's events are stored again
        let again = try await run(["forget", "--user", Self.erased, "--allow-again"])
        #expect(
            again.stdout
                == "allowed again: 1 of 1 customer was on the suppression list; their later events will be stored\n")
        let back = try await run(["import", late])
        #expect(back.stdout.hasPrefix("imported 3, duplicates 3,"))
    }

    @Test func aBadIDListIsAUsageErrorAndABusyStoreExits75() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let input = try scratch.write("in.ndjson", Self.presentation(1, user: Self.kept).joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        for arguments in [
            ["forget"], ["forget", "--user", ""], ["forget", "--user", String(repeating: "x", count: 769)],
            ["forget", "stray", "--user", "a"],
        ] {
            let result = try await cli.run(arguments + ["--db", db])
            #expect(result.status == 64, "\(arguments)")
            #expect(
                result.stderr.hasPrefix("Error: ") && result.stderr.contains("Usage: "),
                "\(arguments): \(result.stderr)")
        }
        // Given another program holding the write lock
        let holder = try Connection(path: db, options: OpenOptions(create: false))
        try holder.execute("BEGIN IMMEDIATE")
        let busy = try await cli.run(["forget", "--user", Self.kept, "--db", db])
        try holder.execute("ROLLBACK")
        // Then forget waits, gives up with 75 and says what to do; nothing was erased
        #expect(busy.status == 75, "\(busy.stderr)")
        #expect(busy.stderr.contains("locked") && busy.stderr.contains("retry"), "\(busy.stderr)")
        #expect(!busy.stderr.contains(Self.kept))
        let stats = try await cli.run(["stats", "--db", db])
        #expect(stats.stdout.contains("Events: 3 "))
    }

    @Test func exportEventsForOneCustomerWritesCSVAndNDJSONThatImportsBackTheSame() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let input = try scratch.write(
            "in.ndjson",
            (Self.presentation(1, user: Self.erased) + Self.presentation(2, user: Self.kept))
                .joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        let csv = try await cli.run(["export", "events", "--user", Self.kept, "--out", "-", "--db", db])
        #expect(csv.status == 0)
        let rows = csv.stdout.split(separator: "\r\n")
        #expect(rows.count == 4 && rows.dropFirst().allSatisfy { $0.contains(",\(Self.kept),") }, "\(csv.stdout)")
        let ndjson = try await cli.run([
            "export", "events", "--user", Self.kept, "--format", "ndjson",
            "--out", scratch.path("kept.ndjson"), "--db", db,
        ])
        #expect(ndjson.stdout == "exported 3 lines to \(scratch.path("kept.ndjson"))\n")
        let copy = scratch.path("copy.sqlite")
        let reimported = try await cli.run(["import", scratch.path("kept.ndjson"), "--db", copy])
        #expect(reimported.stdout == "imported 3, duplicates 0, conflicts 0, quarantined 0\n", "\(reimported.stderr)")
        // The same events, field for field (recorded_at is the import's time); the CSV's ISO columns do not
        // stop the NDJSON (which has none) from importing back
        func fields(_ path: String) async throws -> [String] {
            let out = try await cli.run(["export", "events", "--raw", "--out", "-", "--db", path, "--user", Self.kept])
            return out.stdout.split(separator: "\r\n").map { line in
                var cells = line.split(separator: ",", omittingEmptySubsequences: false)
                cells.removeSubrange(4...5)  // recorded_at and recorded_at_iso
                return cells.joined(separator: ",")
            }
        }
        #expect(try await fields(copy) == (try await fields(db)))
        let wrong = try await cli.run(["export", "quarantine", "--format", "ndjson", "--out", "-", "--db", db])
        #expect(wrong.status == 64 && wrong.stderr.contains("--format ndjson is for `export events` only"))
    }
}
