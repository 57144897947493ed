import Foundation
import PaywallTestSupport
import Testing

/// The HTML report in a real browser: headless Chromium renders it to a PNG and dumps the DOM
/// after any scripts would have run. Needs `chromium` and Python's Pillow (installed by .ci/run);
/// a missing tool fails the test, it never skips.
struct BrowserReportTests {
    let cli = try! CommandRunner()

    static func chromium() throws -> CommandRunner {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return CommandRunner(executable: URL(fileURLWithPath: path))
        }
        throw CocoaError(
            .fileNoSuchFile,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "chromium is not installed; run scripts/test once (it installs chromium), or `apt-get install -y chromium`"
            ])
    }

    static func browse(_ html: String, _ mode: String, _ scratch: TemporaryDirectory) async throws
        -> CommandRunner.Output
    {
        try await chromium().run([
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,2000",
            "--user-data-dir=\(scratch.path("profile"))", mode, "file://\(html)",
        ])
    }

    @Test func theDemoReportRendersWithEveryPlacementAndTheNumbersOfTheCSVs() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let demo = try await cli.run(
            ["demo", "--customers", "800", "--days", "10", "--quiet"],
            environment: ["REVENUECAT_API_KEY": ""], directory: scratch.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        let html = scratch.path("paywall-report/report.html")
        // The picture is not blank
        let png = scratch.path("report.png")
        let shot = try await Self.browse(html, "--screenshot=\(png)", scratch)
        #expect(FileManager.default.fileExists(atPath: png), "chromium wrote no screenshot: \(shot.stderr)")
        let check = try await Python.runner()
            .run([Golden.packageRoot().appendingPathComponent("Tests/CLITests/scripts/check_screenshot.py").path, png])
        #expect(check.status == 0, "screenshot looks blank: \(check.stdout) \(check.stderr)")
        // The rendered DOM shows every placement and the numbers of placement_summary.csv
        let dom = try await Self.browse(html, "--dump-dom", scratch).stdout
        #expect(dom.contains("<h1>Paywall report</h1>"))
        // 10 days are too few for the week-over-week headline, and it says so
        #expect(dom.contains("Not enough data for a week-over-week comparison"))
        // The offering comparison: onboarding and settings each test two offerings, drawn as charts with a verdict
        #expect(dom.contains("<h2>Offering comparison</h2>"))
        #expect(dom.components(separatedBy: "class=\"chart offering-chart\"").count == 3)
        #expect(dom.contains("onboarding_classic (control)") || dom.contains("onboarding_trial (control)"))
        #expect(dom.components(separatedBy: "class=\"verdict").count >= 3, "a verdict in words per compared placement")
        // Under each compared placement its offerings over time: a conversion and a revenue chart, one line
        // per offering, every point a circle whose title says what it counts from the first day
        let trends = OfferingTrendsCLITests.trendCharts(dom)
        #expect(
            trends.keys.sorted() == [
                "Conversion by offering over time at onboarding", "Conversion by offering over time at settings",
                "Revenue per customer by offering over time at onboarding",
                "Revenue per customer by offering over time at settings",
            ])
        for (label, titles) in trends {
            #expect(titles.count >= 10, "\(label): \(titles.count) points")
            let counted = label.hasPrefix("Conversion") ? " who saw offering " : " per customer ("
            #expect(titles.allSatisfy { $0.contains(" to ") && $0.contains(counted) }, "\(label): \(titles.prefix(3))")
        }
        let summary = try String(contentsOfFile: scratch.path("paywall-report/placement_summary.csv"), encoding: .utf8)
        let rows = summary.split(separator: "\r\n").dropFirst().map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        #expect(rows.count == 6)
        for row in rows {
            #expect(dom.contains("Placement <q><bdi>\(row[0])</bdi></q>"), "section for \(row[0])")
            let cells = [row[1], row[2], row[3], row[4]].map { ">\($0)</td>" }
            #expect(cells.allSatisfy { dom.contains($0) }, "summary numbers of \(row[0])")
            if let rate = Double(row[6]) { #expect(dom.contains(String(format: ">%.2f%%</td>", rate * 100))) }
        }
    }

    @Test func aPlacementNamedLikeAScriptShowsAsTextAndRunsNothing() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("hostile.sqlite")
        let hostile = [
            #"<script>document.title='pwned'</script>"#, #"<img src=x onerror="document.title='pwned'">"#,
            "<b id=pwned>bold</b>", "=cmd|' /C calc'!A0",
        ]
        let lines = hostile.enumerated().map { index, source in
            let escaped = source.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"")
            return Sample.shown(index + 1, source: escaped)
        }
        let file = try scratch.write("h.ndjson", lines.joined(separator: "\n") + "\n")
        let imported = try await cli.run(["import", file, "--db", db])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        let out = scratch.path("out")
        #expect(
            try await cli.run(["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out, "--db", db]).status
                == 0)
        let dom = try await Self.browse(out + "/report.html", "--dump-dom", scratch).stdout
        #expect(dom.contains("<title>Paywall report"), "no script from the data ran (the title is intact)")
        #expect(!dom.contains("pwned</title>"))
        #expect(!dom.contains("<img") && !dom.contains("<b id"), "no element from the data was created")
        #expect(dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"))
        #expect(dom.contains("&lt;b id=pwned&gt;bold&lt;/b&gt;"))
        #expect(dom.contains("=cmd|' /C calc'!A0"), "the HTML shows the raw text (the CSV carries the guard)")
        let csv = try String(contentsOfFile: out + "/placement_summary.csv", encoding: .utf8)
        #expect(csv.contains("'=cmd|' /C calc'!A0"))
    }
}
