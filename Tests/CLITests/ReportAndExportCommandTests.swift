import Foundation
import PaywallTestSupport
import Testing

struct ReportAndExportCommandTests {
    let cli = try! CommandRunner()

    @Test func aRangeReportWritesEveryCSVAndFiltersPlacements() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let out = scratch.path("range")
        let result = try await cli.run([
            "report", "--from", "2026-10-01", "--to", "2026-10-03", "--out", out, "--db", db,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote 9 reports ("))
        for name in [
            "encounter_funnel", "conversion_funnel", "cohort_conversion", "placement_summary", "product_mix",
            "offering_comparison", "data_quality", "segments",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(name).csv"), "\(name).csv")
        }
        let encounter = try String(contentsOfFile: "\(out)/encounter_funnel.csv", encoding: .utf8)
        #expect(
            encounter.hasPrefix(
                "date,placement,presentations,impressions,dwell_bounces,unique_viewers,impression_rate\r\n"))
        #expect(!encounter.contains("2026-10-04"))
        let only = scratch.path("only")
        _ = try await cli.run([
            "report", "--from", "2026-10-01", "--to", "2026-10-05", "--out", only, "--db", db, "--placement",
            "onboarding",
        ])
        let rows = try String(contentsOfFile: "\(only)/placement_summary.csv", encoding: .utf8).split(separator: "\r\n")
        #expect(rows.count == 2 && rows[1].hasPrefix("onboarding,"))
    }

    @Test func controlChoosesTheOfferingComparedAgainstWherePlacementsHaveIt() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        func controls(_ extra: [String]) async throws -> [String] {
            let out = scratch.path("control-\(extra.count)-\(extra.last ?? "")")
            let result = try await cli.run(
                ["report", "--from", "2026-10-01", "--to", "2026-10-05", "--out", out, "--db", db] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let rows = try String(contentsOfFile: out + "/offering_comparison.csv", encoding: .utf8).split(
                separator: "\r\n")
            let header =
                "placement,offering,customers,impressions,converted,conversion_rate,ci_low,ci_high,is_control,lift,p_value,"
                + "paid_starts,trial_starts,revenue_usd,revenue_per_customer,rpc_ci_low,rpc_ci_high,revenue_p_value,"
                + "diff,seq_ci_low,seq_ci_high,seq_p_value,srm_p_value"
            #expect(rows.first.map(String.init) == header)
            return rows.dropFirst().filter { $0.contains(",true,") }.map { String($0.split(separator: ",")[1]) }
        }
        // The demo's onboarding compares onboarding_classic (60 % of customers) and onboarding_trial
        let byDefault = try await controls([])
        #expect(byDefault.contains("onboarding_classic"))
        // --control onboarding_trial changes onboarding only
        let chosen = try await controls(["--control", "onboarding_trial"])
        #expect(chosen == byDefault.map { $0 == "onboarding_classic" ? "onboarding_trial" : $0 })
        let empty = try await cli.run([
            "report", "--from", "2026-10-01", "--to", "2026-10-05", "--out", scratch.path("e"), "--db", db,
            "--control", "",
        ])
        #expect(empty.status == 64 && empty.stderr.contains("--control needs an offering id"), "\(empty.stderr)")
    }

    @Test func theNightlyJobIsIncrementalAndIdempotent() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let out = scratch.path("nightly")
        let first = try await cli.run([
            "report", "--nightly", "--out", out, "--db", db, "--now", "2026-10-06T02:00:00Z",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await cli.run([
            "report", "--nightly", "--out", out, "--db", db, "--now", "2026-10-06T02:00:00Z",
        ])
        #expect(again.stdout == "no new events since the last run; \(out) is unchanged\n")
        // A late event for 2026-10-03 arrives
        let late =
            #"{"id":"01936B2A-7C00-7000-8000-00000000AA01","name":"paywall_shown","occurred_at":1791000000000,"user_id":"late_user","catalog_version":1,"pw_id":"01936B2A-7000-7000-8000-00000000AA01","source":"settings"}"#
        let file = try scratch.write("late.ndjson", late + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        let third = try await cli.run([
            "report", "--nightly", "--out", out, "--db", db, "--now", "2026-10-06T02:00:00Z",
        ])
        #expect(third.stdout.hasPrefix("read 1 new events, recomputed 1 day(s) (2026-10-03 … 2026-10-03)"))
    }

    @Test func aNightlyRunWhileAnotherHoldsTheDatabaseExits75AndWritesNothing() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        // A live process on this host (this test) holds the reports lease
        let lease = "token-of-other-run \(getpid()) 99999999999999 \(ProcessInfo.processInfo.hostName)"
        let sql = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/env")).run([
            "sqlite3", db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('reports.lease', '\(lease)')",
        ])
        #expect(sql.status == 0, "\(sql.stderr)")
        let out = scratch.path("busy")
        let result = try await cli.run(["report", "--nightly", "--out", out, "--db", db])
        #expect(result.status == 75)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test(
        arguments: [
            (["report", "--from", "2026-10-05", "--to", "2026-10-01", "--out", "x"], 64, "after it ends"),
            (["report", "--from", "2026-13-01", "--to", "2026-10-01", "--out", "x"], 64, "is not a date"),
            (["report", "--from", "2026-10-01", "--out", "x"], 64, "needs --from and --to"),
            (["report", "--nightly", "--from", "2026-10-01", "--out", "x"], 64, "leave out --from"),
            (["report", "--from", "2026-10-01", "--to", "2026-10-02"], 64, "needs --out"),
            (
                ["report", "--from", "2026-10-01", "--to", "2026-10-02", "--out", "x", "--timezone", "Mars/Olympus"],
                64, "Mars/Olympus"
            ),
            (["export", "everything", "--out", "-"], 64, "events, funnels, quarantine, dead-letters"),
            (["export", "events"], 64, "needs --out"),
        ] as [([String], Int32, String)])
    func badArgumentsExit64(arguments: [String], status: Int32, message: String) async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let result = try await cli.run(arguments + ["--db", db], directory: scratch.url)
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func reportAndExportOnAMissingDatabaseExit66() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        for arguments in [["report", "--nightly", "--out", scratch.path("o")], ["export", "events", "--out", "-"]] {
            let result = try await cli.run(arguments + ["--db", scratch.path("none.sqlite")])
            #expect(result.status == 66)
        }
    }

    @Test func anUnwritableOutputExits73() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let blocker = try scratch.write("file", "not a folder")
        let result = try await cli.run([
            "report", "--from", "2026-10-01", "--to", "2026-10-02", "--out", blocker + "/sub", "--db", db,
        ])
        #expect(result.status == 73)
        let export = try await cli.run(["export", "events", "--out", blocker + "/e.csv", "--db", db])
        #expect(export.status == 73)
    }

    @Test func exportStreamsFilteredCSVWithTheFormulaGuardUnlessRaw() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("e.sqlite")
        let file = try scratch.write(
            "a.ndjson",
            [Sample.shown(1, source: "=HYPERLINK(1)"), Sample.shown(2, source: "plain")].joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        let guarded = try await cli.run(["export", "events", "--out", "-", "--db", db])
        #expect(guarded.status == 0)
        #expect(guarded.stdout.contains(",'=HYPERLINK(1),"))
        let raw = try await cli.run([
            "export", "events", "--out", "-", "--raw", "--placement", "=HYPERLINK(1)", "--db", db,
        ])
        #expect(raw.stdout.contains(",=HYPERLINK(1),"))
        #expect(!raw.stdout.contains(",plain,"))
        let toFile = try await cli.run([
            "export", "events", "--out", scratch.path("e.csv"), "--name", "paywall_closed", "--db", db,
        ])
        #expect(toFile.stdout == "exported 0 rows to \(scratch.path("e.csv"))\n")
    }
}
