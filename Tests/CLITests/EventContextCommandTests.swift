import Foundation
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

/// Catalog version 2's context fields (app_version, build, platform, os_version, sdk_version, locale)
/// through the built binary: import, the CSV and NDJSON exports, an export imported back, and the
/// import of another store's file, of the current schema and of the schema before the context columns.
struct EventContextCommandTests {
    let cli = try! CommandRunner()

    /// One presentation (impression and close) as NDJSON lines of catalog `version`, with `context`
    /// members (already JSON) on both events.
    static func presentation(_ n: Int, version: Int, context: String = "") -> [String] {
        let pw = "01936B2A-7000-7000-8000-\(String(format: "%012d", n))"
        let time = 1_764_400_000_000 + Int64(n) * 60_000
        let extra = context.isEmpty ? "" : "," + context
        return [
            #"{"id":"01936B2A-7C00-7000-8000-\#(String(format: "%012d", 2 * n))","name":"paywall_shown","occurred_at":\#(time),"user_id":"u\#(n)","catalog_version":\#(version),"pw_id":"\#(pw)","source":"home"\#(extra)}"#,
            #"{"id":"01936B2A-7C00-7000-8000-\#(String(format: "%012d", 2 * n + 1))","name":"paywall_closed","occurred_at":\#(time + 3_000),"user_id":"u\#(n)","catalog_version":\#(version),"pw_id":"\#(pw)","source":"home","result":"dismissed","via":"close_button","open_s":3\#(extra)}"#,
        ]
    }

    static let fullContext =
        #""app_version":"3.2.0","build":"412","platform":"ios","os_version":"17.4.1","sdk_version":"0.1.0","locale":"pt-BR""#

    /// NDJSON lines without their `recorded_at` (each store sets its own).
    static func withoutRecordedAt(_ text: String) -> [String] {
        withoutRecordedAt(text.split(separator: "\n").map(String.init))
    }

    static func withoutRecordedAt(_ lines: [String]) -> [String] {
        lines.map { $0.replacing(/"recorded_at":[0-9]+,/, with: "") }
    }

    @Test func versionOneAndTwoEventsImportExportAndImportBackWithTheirContext() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-context")
        let db = scratch.path("events.sqlite")
        // Given version-1 events, version-2 events with every context field and with some, and a
        // version-1 event that carries app_version (refused: a version-1 writer cannot have meant it)
        let lines =
            Self.presentation(1, version: 1) + Self.presentation(2, version: 2, context: Self.fullContext)
            + Self.presentation(3, version: 2, context: #""platform":"android","app_version":"2.0""#)
            + Self.presentation(4, version: 2)
            + [Self.presentation(5, version: 1, context: #""app_version":"1.0""#)[0]]
        let file = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        // When they are imported
        let imported = try await cli.run(["import", file, "--no-forward", "--db", db])
        // Then the valid ones are stored and the version-1 event with app_version is quarantined, saying why
        #expect(imported.status == 65)
        #expect(imported.stdout == "imported 8, duplicates 0, conflicts 0, quarantined 1\n")
        let quarantine = try await cli.run(["export", "quarantine", "--raw", "--out", "-", "--db", db])
        #expect(quarantine.stdout.contains("app_version was introduced in catalog version 2"))
        // And the CSV export has the six columns, filled for version-2 events and empty for version 1
        let csv = try await cli.run(["export", "events", "--raw", "--out", "-", "--db", db])
        #expect(csv.status == 0)
        let rows = csv.stdout.split(whereSeparator: \.isNewline).map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        let header = rows[0].map(String.init)
        for field in ["app_version", "build", "platform", "os_version", "sdk_version", "locale"] {
            #expect(header.contains(field), "CSV header lacks \(field): \(header)")
        }
        func column(_ name: String, user: String) -> [String] {
            let index = header.firstIndex(of: name)!
            let userIndex = header.firstIndex(of: "user_id")!
            return rows.dropFirst().filter { String($0[userIndex]) == user }.map { String($0[index]) }
        }
        #expect(column("app_version", user: "u2") == ["3.2.0", "3.2.0"])
        #expect(column("platform", user: "u2") == ["ios", "ios"])
        #expect(column("locale", user: "u2") == ["pt-BR", "pt-BR"])
        #expect(column("platform", user: "u3") == ["android", "android"])
        #expect(column("build", user: "u3") == ["", ""])
        #expect(column("app_version", user: "u1") == ["", ""])
        // And the NDJSON export writes the fields a version-2 event has, and none for version 1
        let ndjson = scratch.path("export.ndjson")
        #expect(try await cli.run(["export", "events", "--format", "ndjson", "--out", ndjson, "--db", db]).status == 0)
        let exported = try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(exported.count == 8)
        let validator = EventValidator()
        let records = exported.compactMap { line -> EventRecord? in
            guard case .valid(let event) = validator.validate(line: line) else { return nil }
            return event
        }
        #expect(records.count == 8)
        #expect(
            records.filter { $0.userID == "u2" }.map(\.context)
                == Array(
                    repeating: EventContext(
                        appVersion: "3.2.0", build: "412", platform: .ios, osVersion: "17.4.1", sdkVersion: "0.1.0",
                        locale: "pt-BR"), count: 2))
        #expect(records.filter { $0.userID == "u1" || $0.userID == "u4" }.allSatisfy { $0.context.isEmpty })
        #expect(exported.filter { $0.contains("\"u1\"") }.allSatisfy { !$0.contains("app_version") })
        // And the export imports back into its own store as duplicates only, and into a new store whole
        let back = try await cli.run(["import", ndjson, "--no-forward", "--db", db])
        #expect(back.stdout == "imported 0, duplicates 8, conflicts 0, quarantined 0\n")
        let copy = scratch.path("copy.sqlite")
        #expect(try await cli.run(["import", ndjson, "--no-forward", "--db", copy]).status == 0)
        let again = try await cli.run(["export", "events", "--format", "ndjson", "--out", "-", "--db", copy])
        #expect(Self.withoutRecordedAt(again.stdout) == Self.withoutRecordedAt(exported))
        // And a store file imported into another store keeps every context field (shard import)
        let merged = scratch.path("merged.sqlite")
        let shard = try await cli.run(["import", db, "--no-forward", "--db", merged])
        #expect(shard.stdout == "imported 8, duplicates 0, conflicts 0, quarantined 0\n")
        let mergedExport = try await cli.run(["export", "events", "--format", "ndjson", "--out", "-", "--db", merged])
        #expect(Self.withoutRecordedAt(mergedExport.stdout) == Self.withoutRecordedAt(exported))
    }

    @Test func aStoreFileOfTheSchemaBeforeTheContextColumnsImportsWhole() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-context")
        // Given a real store file of the previous schema (no context columns) with 4 presentations
        let old = scratch.path("old.sqlite")
        let events = try OldSchemaStore.write(path: old, presentations: 4)
        // When the current binary imports it into a new store
        let db = scratch.path("events.sqlite")
        let result = try await cli.run(["import", old, "--no-forward", "--db", db])
        // Then every event is stored, none quarantined, with an empty context
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "imported \(events.count), duplicates 0, conflicts 0, quarantined 0\n")
        let exported = try await cli.run(["export", "events", "--format", "ndjson", "--out", "-", "--db", db])
        let lines = exported.stdout.split(separator: "\n")
        #expect(lines.count == events.count)
        #expect(lines.allSatisfy { !$0.contains("platform") && !$0.contains("app_version") })
        // And the source file was only read: it still has the old schema
        let reopened = try Connection(path: old)
        let columns = try reopened.all("SELECT name FROM pragma_table_info('events')") { $0.string(at: 0) ?? "" }
        #expect(!columns.contains("app_version"))
        // And the report of the imported store counts the old presentations
        let out = scratch.path("report")
        let report = try await cli.run([
            "report", "--from", "2025-11-01", "--to", "2025-12-31", "--out", out, "--db", db, "--quiet",
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let summary = try String(contentsOfFile: out + "/placement_summary.csv", encoding: .utf8)
        #expect(summary.contains("home,4,4,"), "\(summary)")
    }

    @Test func forgettingACustomerErasesTheirContextfulEventsAndQuarantinedLinesAndKeepsTheOthers() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-context")
        let db = scratch.path("events.sqlite")
        // Given two customers' version-2 events with a context, and a refused version-1 line of the
        // first that carries app_version (quarantined with its user_id)
        let lines =
            Self.presentation(1, version: 2, context: Self.fullContext)
            + Self.presentation(2, version: 2, context: Self.fullContext)
            + [
                Self.presentation(3, version: 1, context: #""app_version":"1.0""#)[0].replacingOccurrences(
                    of: #""user_id":"u3""#, with: #""user_id":"u1""#)
            ]
        let file = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--no-forward", "--db", db]).status == 65)
        // When u1 is forgotten
        let forget = try await cli.run(["forget", "--user", "u1", "--db", db])
        #expect(forget.status == 0, "\(forget.stderr)")
        // Then u1's events and quarantined line are gone, and u2's events keep their context
        let csv = try await cli.run(["export", "events", "--raw", "--out", "-", "--db", db])
        #expect(!csv.stdout.contains(",u1,"))
        #expect(csv.stdout.components(separatedBy: ",u2,").count == 3)
        #expect(csv.stdout.components(separatedBy: "3.2.0,412,ios,17.4.1,0.1.0,pt-BR").count == 3)
        let quarantine = try await cli.run(["export", "quarantine", "--raw", "--out", "-", "--db", db])
        #expect(!quarantine.stdout.contains("u1"), "\(quarantine.stdout)")
    }

    @Test func segmentsSplitEachPlacementByPlatformAndAppVersionAndThePageListsTheBrokenOnes() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-context")
        let db = scratch.path("events.sqlite")
        // Given placement home: 40 presentations from iOS 3.2.0 with impressions, 35 from Android 2.0
        // whose impressions never arrive (broken), 10 from the web without impressions (too few to
        // judge), and 5 version-1 presentations with impressions
        var lines: [String] = []
        var n = 0
        func add(_ count: Int, _ context: String, shown: Bool, version: Int = 2) {
            for _ in 0..<count {
                n += 1
                let pair = Self.presentation(n, version: version, context: context)
                lines += shown ? pair : [pair[1]]
            }
        }
        add(40, #""platform":"ios","app_version":"3.2.0""#, shown: true)
        add(35, #""platform":"android","app_version":"2.0""#, shown: false)
        add(10, #""platform":"web""#, shown: false)
        add(5, "", shown: true, version: 1)
        let file = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--no-forward", "--db", db]).status == 0)
        // When the report runs
        let out = scratch.path("report")
        let report = try await cli.run([
            "report", "--from", "2025-11-01", "--to", "2025-12-31", "--out", out, "--db", db, "--quiet",
        ])
        #expect(report.status == 0, "\(report.stderr)")
        // Then segments.csv has one row per (placement, platform, app_version), empty values their own segment
        let segments = try String(contentsOfFile: out + "/segments.csv", encoding: .utf8)
        #expect(
            segments.split(whereSeparator: \.isNewline) == [
                "placement,platform,app_version,presentations,impressions,unique_viewers,purchased,restored,conversion_rate,open_s_p50,open_s_p90,impression_rate,impression_rate_vs_placement",
                "home,,,5,5,5,0,0,0.0000,3.000,3.000,1.0000,0.5000",
                "home,android,2.0,35,0,0,0,0,,,,0.0000,-0.5000",
                "home,ios,3.2.0,40,40,40,0,0,0.0000,3.000,3.000,1.0000,0.5000",
                "home,web,,10,0,0,0,0,,,,0.0000,-0.5000",
            ], "\(segments)")
        // And the page lists the Android segment (35 presentations, no impression) and not the web one (10)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        let broken = try #require(html.range(of: "<h3>Possibly broken instrumentation</h3>"))
        let list = String(html[broken.upperBound...]).components(separatedBy: "</ul>")[0]
        #expect(
            list.contains(
                "<li><bdi>home</bdi> · platform <bdi>android</bdi> · app version <bdi>2.0</bdi>: 0 impressions of 35 presentations"
            ), "\(list)")
        #expect(list.components(separatedBy: "<li>").count == 2, "only the Android segment is listed: \(list)")
    }

    @Test func theContextFiltersKeepTheMatchingPresentationsAndRefuseBadValues() async throws {
        let scratch = TemporaryDirectory(prefix: "cli-context")
        let db = scratch.path("events.sqlite")
        var lines: [String] = []
        for n in 1...3 {
            lines += Self.presentation(n, version: 2, context: #""platform":"ios","app_version":"3.2.0""#)
        }
        for n in 4...5 {
            lines += Self.presentation(n, version: 2, context: #""platform":"android","app_version":"2.0""#)
        }
        for n in 6...6 { lines += Self.presentation(n, version: 1) }
        let file = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", file, "--no-forward", "--db", db]).status == 0)
        let range = ["report", "--from", "2025-11-01", "--to", "2025-12-31", "--db", db, "--quiet"]
        func presentations(_ out: String) throws -> [String] {
            let text = try String(contentsOfFile: out + "/placement_summary.csv", encoding: .utf8)
            return text.split(whereSeparator: \.isNewline).dropFirst().map { String($0.split(separator: ",")[1]) }
        }
        // Repeated --platform: either; '' is "not stated" (the version 1 presentation)
        for (flags, expected) in [
            (["--platform", "ios"], "3"), (["--platform", "ios", "--platform", "android"], "5"),
            (["--platform", ""], "1"), (["--platform", "android", "--app-version", "2.0"], "2"),
            (["--platform", "ios", "--app-version", "2.0"], nil),
            (["--app-version", "3.2.0", "--app-version", ""], "4"),
        ] as [([String], String?)] {
            let out = scratch.path("r\(flags.joined(separator: "-"))")
            let run = try await cli.run(range + ["--out", out] + flags)
            #expect(run.status == 0, "\(flags): \(run.stderr)")
            #expect(try presentations(out) == (expected.map { [$0] } ?? []), "\(flags)")
        }
        // A platform outside the catalog's: exit 65 naming the nearest, nothing written
        let typo = try await cli.run(range + ["--out", scratch.path("x"), "--platform", "andriod"])
        #expect(typo.status == 65, "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x")))
        #expect(typo.stderr.contains("did you mean android?"), "\(typo.stderr)")
        // An app version the store has never seen: exit 65 naming the nearest known one
        let unknown = try await cli.run(range + ["--out", scratch.path("y"), "--app-version", "3.2"])
        #expect(unknown.status == 65, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no app version '3.2' in this store; did you mean"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("3.2.0"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("y")))
        // A filtered nightly recomputes its own window into its own folder
        let nightly = try await cli.run([
            "report", "--nightly", "--out", scratch.path("n"), "--db", db, "--now", "2025-12-01T00:00:00Z",
            "--platform", "android",
        ])
        #expect(nightly.status == 0, "\(nightly.stderr)")
        #expect(try presentations(scratch.path("n")) == ["2"])
    }
}
