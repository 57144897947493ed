import Foundation
import PaywallTestSupport
import Testing

/// The page's layout measured in a real browser at a 1,400-px window: headless Chromium runs a
/// measuring script added to a copy of the page (the page itself has none) and the test reads its
/// figures from the dumped DOM. The store has a day without events in the middle, made through the
/// built binary (the demo's events exported around that day and imported into a new store).
struct BrowserLayoutTests {
    let cli = try! CommandRunner()

    /// Measures the document's width, every table's body rows, tables cut off in their scroll box,
    /// elements reaching past the window, and the rendered size of every SVG text in px.
    static let measure = """
        <script>
        (function () {
          var root = document.documentElement;
          var rows = [].map.call(document.querySelectorAll("table"), function (t) {
            return t.tBodies.length ? t.tBodies[0].rows.length : t.rows.length; });
          var cut = [].filter.call(document.querySelectorAll(".scroll"), function (s) {
            return s.scrollWidth > s.clientWidth + 1; }).length;
          var small = [];
          var fonts = [].map.call(document.querySelectorAll("svg text"), function (t) {
            var m = t.getScreenCTM(); var px = parseFloat(getComputedStyle(t).fontSize) * (m ? Math.sqrt(m.a * m.a + m.b * m.b) : 1);
            if (px < 11 && small.length < 5) small.push(t.closest("svg").getAttribute("class") + ": " + t.textContent + " " + px);
            return px; });
          var wide = [].filter.call(document.querySelectorAll("main *"), function (e) {
            return e.getBoundingClientRect().right > window.innerWidth + 1; }).length;
          var out = document.createElement("pre");
          out.id = "measured";
          out.textContent = JSON.stringify({ scrollWidth: root.scrollWidth, innerWidth: window.innerWidth, rows: rows,
            cut: cut, minFont: Math.min.apply(null, fonts), texts: fonts.length, wide: wide, small: small });
          document.body.appendChild(out);
        })();
        </script>
        """

    struct Measured: Decodable {
        var scrollWidth: Double, innerWidth: Double, rows: [Int], cut: Int, minFont: Double, texts: Int, wide: Int
        var small: [String]
    }

    @Test func atA1400PixelWindowNothingIsWiderNoTableIsLongAndADayWithoutDataIsAGap() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let demo = try await cli.run(
            ["demo", "--customers", "800", "--days", "20", "--quiet"],
            environment: ["REVENUECAT_API_KEY": ""], directory: scratch.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        // The demo's days, and a day in the middle to leave out
        let funnel = try String(contentsOfFile: scratch.path("paywall-report/conversion_funnel.csv"), encoding: .utf8)
        let dates = Set(funnel.split(separator: "\r\n").dropFirst().map { String($0.prefix(10)) }).sorted()
        #expect(dates.count >= 20)
        let (first, before, gap, after, last) = (dates[0], dates[9], dates[10], dates[11], dates[dates.count - 1])
        let store = scratch.path("gap.sqlite")
        for (from, to) in [(first, before), (after, last)] {
            let file = scratch.path("events-\(from).ndjson")
            let export = try await cli.run(
                [
                    "export", "events", "--format", "ndjson", "--from", from, "--to", to, "--out", file, "--db",
                    scratch.path("paywall-demo.sqlite"),
                ])
            #expect(export.status == 0, "\(export.stderr)")
            let imported = try await cli.run(["import", file, "--db", store])
            #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        }
        let out = scratch.path("out")
        let report = try await cli.run(["report", "--from", first, "--to", last, "--out", out, "--db", store])
        #expect(report.status == 0, "\(report.stderr)")
        let page = try String(contentsOfFile: out + "/report.html", encoding: .utf8)

        // Measured at 1,400 px: nothing wider than the window, no table over 60 rows or cut off,
        // every chart text at least 11 px
        let measuring = scratch.path("measure.html")
        try page.replacingOccurrences(of: "</body>", with: Self.measure + "</body>")
            .write(toFile: measuring, atomically: true, encoding: .utf8)
        let dom = try await BrowserReportTests.chromium().run([
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1000",
            "--user-data-dir=\(scratch.path("profile"))", "--dump-dom", "file://\(measuring)",
        ]).stdout
        let json = try #require(
            dom.firstMatch(of: /<pre id="measured">([^<]*)<\/pre>/).map { String($0.1) }, "no measurement in the DOM")
        let measured = try JSONDecoder().decode(
            Measured.self, from: Data(json.replacingOccurrences(of: "&quot;", with: "\"").utf8))
        #expect(measured.innerWidth == 1400, "\(json)")
        #expect(measured.scrollWidth <= 1400, "the page is wider than the window: \(json)")
        #expect(measured.wide == 0, "elements reach past the window: \(json)")
        #expect(!measured.rows.isEmpty && measured.rows.allSatisfy { $0 <= 60 }, "a table over 60 rows: \(json)")
        #expect(measured.cut == 0, "a table is cut off in its scroll box: \(json)")
        #expect(measured.texts > 100 && measured.minFont >= 11, "chart text under 11 px: \(json)")

        // The left-out day is a gap in onboarding's conversion line: no point on it, points on both
        // sides, and the line broken in two
        let section = try #require(
            dom.components(separatedBy: "Placement <q><bdi>onboarding</bdi></q>").dropFirst().first)
        let charts = section.components(separatedBy: "<svg class=\"chart daily\"")
        let conversion = try #require(charts.first { $0.contains("Purchases per impression per day at") })
        let titles = conversion.matches(of: /<title>([^<]*)<\/title>/).map { String($0.1) }
        #expect(!titles.contains { $0.hasPrefix(gap) }, "no point on \(gap)")
        #expect(titles.contains { $0.hasPrefix(before + ": ") } && titles.contains { $0.hasPrefix(after + ": ") })
        let lines = conversion.components(separatedBy: "class=\"series s0\"").count - 1
        #expect(lines >= 2, "the line breaks at \(gap)")
        // The headline compares the last 7 days with the 7 before for each of the 6 placements, in words
        let headline = try #require(dom.components(separatedBy: "<section class=\"headline\">").dropFirst().first)
        let items = headline[..<(headline.range(of: "</section>")?.lowerBound ?? headline.endIndex)]
            .components(separatedBy: "<li>").dropFirst()
        #expect(items.count == 6, "\(headline.prefix(3000))")
        #expect(items.allSatisfy { $0.contains("could be noise (p") || $0.contains("likely a real change (p") })
        // Every daily conversion title agrees with Python's Wilson interval
        let dumped = scratch.path("dom.html")
        try dom.write(toFile: dumped, atomically: true, encoding: .utf8)
        let check = try await Python.runner().run([
            Golden.packageRoot().appendingPathComponent("Tests/PaywallReportsTests/scripts/daily_titles_check.py").path,
            dumped,
        ])
        #expect(check.status == 0, "daily_titles_check.py: \(check.stdout)\(check.stderr)")
        // and that includes the offering trends' points (counted from the first day), drawn in the browser
        let trendPoints = check.stdout.firstMatch(of: /"offering_trend_points": (\d+)/).flatMap { Int($0.1) } ?? 0
        #expect(trendPoints >= 20, "offering trend points checked: \(check.stdout)")

        // A screenshot at 1,400 px that is not blank
        let png = scratch.path("report.png")
        _ = try await BrowserReportTests.chromium().run([
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,2400",
            "--user-data-dir=\(scratch.path("profile"))", "--screenshot=\(png)", "file://\(out)/report.html",
        ])
        let shot = try await Python.runner()
            .run([Golden.packageRoot().appendingPathComponent("Tests/CLITests/scripts/check_screenshot.py").path, png])
        #expect(shot.status == 0, "screenshot looks blank: \(shot.stdout) \(shot.stderr)")
    }
}
