import Foundation
import PaywallTestSupport
import Testing

/// The command line catches a user's mistakes, through the built binary: misspelled filter values,
/// flags and subcommands, an id that matches nothing, and it words every rate and time so it cannot be
/// misread.
struct MistakesCommandTests {
    let cli = try! CommandRunner()

    @Test func anUnknownPlacementOrControlExits65NamingTheClosestKnownAndWritesNothing() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let range = ["report", "--from", "2026-10-01", "--to", "2026-10-05", "--db", db]
        // A misspelled placement: 65, the one meant named, no report written
        let misspelled = try await cli.run(range + ["--out", scratch.path("a"), "--placement", "onbaording"])
        #expect(misspelled.status == 65, "\(misspelled.stderr)")
        #expect(
            misspelled.stderr.contains(
                "--placement onbaording: no placement 'onbaording' in this store; did you mean onboarding?"),
            "\(misspelled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("a/placement_summary.csv")))
        // One known and one unknown placement: still refused, naming the unknown one
        let mixed = try await cli.run(
            range + ["--out", scratch.path("b"), "--placement", "onboarding", "--placement", "setings"])
        #expect(mixed.status == 65 && mixed.stderr.contains("did you mean settings?"), "\(mixed.stderr)")
        // Nothing near: the nearest known ones are listed all the same
        let far = try await cli.run(range + ["--out", scratch.path("c"), "--placement", "qqqqqqqqqqqqqqqq"])
        #expect(far.status == 65, "\(far.stderr)")
        #expect(far.stderr.contains("the known placements closest to it: "), "\(far.stderr)")
        // A misspelled control: refused instead of quietly using the default
        let control = try await cli.run(range + ["--out", scratch.path("d"), "--control", "onbaording_trial"])
        #expect(control.status == 65, "\(control.stderr)")
        #expect(
            control.stderr.contains("no offering 'onbaording_trial'") && control.stderr.contains("onboarding_trial"))
        // The nightly job checks its control too
        let nightly = try await cli.run([
            "report", "--nightly", "--out", scratch.path("e"), "--db", db, "--control", "onboarding_tral",
        ])
        #expect(nightly.status == 65 && nightly.stderr.contains("did you mean onboarding_trial?"), "\(nightly.stderr)")
        // Known values work as before
        let known = try await cli.run(
            range + ["--out", scratch.path("f"), "--placement", "onboarding", "--control", "onboarding_trial"])
        #expect(known.status == 0, "\(known.stderr)")
        let rows = try String(contentsOfFile: scratch.path("f/placement_summary.csv"), encoding: .utf8)
            .split(separator: "\r\n")
        #expect(rows.count == 2 && rows[1].hasPrefix("onboarding,"))
    }

    @Test func aMisspelledFlagOrSubcommandIsAUsageErrorThatSaysWhatWasMeant() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("none.sqlite")
        let flag = try await cli.run(["report", "--plcement", "onboarding", "--db", db])
        #expect(flag.status == 64)
        #expect(flag.stderr.contains("unknown option '--plcement'; did you mean --placement?"), "\(flag.stderr)")
        let inline = try await cli.run(["export", "events", "--outt=x.csv", "--db", db])
        #expect(inline.status == 64 && inline.stderr.contains("did you mean --out?"), "\(inline.stderr)")
        // Two options as near are both named
        let two = try await cli.run(["export", "events", "--ot", "x.csv", "--db", db])
        #expect(two.status == 64 && two.stderr.contains("did you mean --out or --to?"), "\(two.stderr)")
        let global = try await cli.run(["stats", "--qiet", "--db", db])
        #expect(global.status == 64 && global.stderr.contains("did you mean --quiet?"), "\(global.stderr)")
        let nothingNear = try await cli.run(["stats", "--frobnicate-everything", "--db", db])
        #expect(nothingNear.status == 64 && !nothingNear.stderr.contains("did you mean"), "\(nothingNear.stderr)")
        #expect(nothingNear.stderr.contains("unknown option '--frobnicate-everything'. Run with --help"))
        let subcommand = try await cli.run(["reprot", "--db", db])
        #expect(subcommand.status == 64 && subcommand.stderr.contains("did you mean report?"), "\(subcommand.stderr)")
    }

    @Test func forgettingAnIDThatMatchesNothingSaysSoWithoutTheIDAndStillSuppressesIt() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let stranger = "nobody-here-Zq81x"
        let before = try await cli.run(["stats", "--db", db])
        let forget = try await cli.run(["forget", "--user", stranger, "--db", db])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(forget.stdout.hasPrefix("no stored data matched the id given (ids are not shown); nothing was erased."))
        #expect(forget.stdout.contains("suppression list: 1 added"))
        #expect(!forget.stdout.contains("forgot 1 customer"))
        #expect(!(forget.stdout + forget.stderr).contains(stranger))
        // Nothing was erased: the events are as they were, and the id is suppressed
        let after = try await cli.run(["stats", "--db", db])
        #expect(
            after.stdout.components(separatedBy: "\n").prefix(6)
                == before.stdout.components(separatedBy: "\n").prefix(6))
        #expect(after.stdout.contains("customers on the suppression list: 1"), "\(after.stdout)")
        let late = try scratch.write(
            "late.ndjson",
            #"{"id":"01936B2A-7C00-7000-8000-00000000BB01","name":"paywall_shown","occurred_at":1791000000000,"user_id":"\#(stranger)","catalog_version":1,"pw_id":"01936B2A-7000-7000-8000-00000000BB01","source":"settings"}"#
                + "\n")
        let refused = try await cli.run(["import", late, "--db", db])
        #expect(refused.stdout.contains("imported 0") && refused.stdout.contains("suppressed 1"), "\(refused.stdout)")
        #expect(!(refused.stdout + refused.stderr).contains(stranger))
        // Two ids, one of a stored customer: both counted, the one that matched nothing said so
        let both = try await cli.run(["forget", "--user", "demo_user_00001", "--user", "also-nobody-Kd2", "--db", db])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(
            both.stdout.hasPrefix(
                "forgot 2 customers (ids are not shown; 1 of them matched no stored paywall event); rows erased:"),
            "\(both.stdout)")
        #expect(!both.stdout.contains("demo_user_00001") && !both.stdout.contains("also-nobody-Kd2"))
    }

    @Test func exportEventsHasISOTimesBesideTheMillisecondsAndItsNDJSONImportsBack() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await cli.demoDatabase(scratch)
        let export = try await cli.run(["export", "events", "--out", "-", "--db", db])
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stdout.split(separator: "\r\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        let header = try #require(lines.first).map(String.init)
        #expect(
            Array(header.prefix(6)) == [
                "id", "name", "occurred_at", "occurred_at_iso", "recorded_at", "recorded_at_iso",
            ])
        // Every ISO cell is its millisecond cell as Foundation reads it back
        let reader = ISO8601DateFormatter()
        reader.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let rows = lines.dropFirst()
        #expect(rows.count > 1_000)
        for row in rows {
            for (ms, iso) in [(2, 3), (4, 5)] {
                let millis = try #require(Int64(row[ms]))
                let text = String(row[iso])
                #expect(text.count == 24 && text.hasSuffix("Z"), "\(text)")
                let date = try #require(reader.date(from: text), "\(text)")
                #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == millis, "\(row)")
            }
        }
        // The NDJSON export (the import format, without the ISO columns) imports back as the same events
        let ndjson = try await cli.run([
            "export", "events", "--format", "ndjson", "--out", scratch.path("all.ndjson"), "--db", db,
        ])
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        let copy = scratch.path("copy.sqlite")
        let back = try await cli.run(["import", scratch.path("all.ndjson"), "--db", copy, "--no-forward"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.stdout.hasPrefix("imported \(rows.count), duplicates 0, conflicts 0, quarantined 0"), "\(back.stdout)")
        // … and into the store it came from as nothing but duplicates: every value, open_s's doubles
        // included, is the stored one (15 significant digits made closes conflicts)
        let again = try await cli.run(["import", scratch.path("all.ndjson"), "--db", db, "--no-forward"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.hasPrefix("imported 0, duplicates \(rows.count), conflicts 0, quarantined 0"),
            "\(again.stdout)")
    }

    @Test func theTerminalTableAndThePageSayWhatEachRateDividesBy() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("demo.sqlite")
        let demo = try await cli.run(
            ["demo", "--customers", "300", "--days", "5", "--db", db, "--out", scratch.path("out")],
            environment: ["REVENUECAT_API_KEY": ""])
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("  purchases per impression  "), "\(demo.stdout)")
        #expect(demo.stdout.contains("(customers who bought, of the customers who saw each offering;"))
        let html = try String(contentsOfFile: scratch.path("out/report.html"), encoding: .utf8)
        #expect(html.contains("caption\">purchases per impression<"))
        // The cohort heat map says its rates are of customers, in its scale and in every cell's title
        #expect(html.contains("bought within the window, of customers:"))
        #expect(html.contains(" customers; window complete)</title>"))
        #expect(html.contains("<span class=\"per\">of customers who saw it</span>"))
    }
}
