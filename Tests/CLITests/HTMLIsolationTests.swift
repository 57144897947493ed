import Foundation
import PaywallCore
import PaywallTestSupport
import Testing

/// Placements carrying a right-to-left override, NUL, tabs or newlines, through the built binary and a
/// real browser: report.html isolates every data text in `<bdi>`, shows hidden characters as marked
/// code points (`U+202E`), and never writes them raw; right-to-left names and emoji sequences are
/// shown as they are. The CSVs keep the raw bytes (they are data).
struct HTMLIsolationTests {
    let cli = try! CommandRunner()
    static let override = "\u{202E}txt.exe", nul = "nul\u{0}x", controls = "tab\there\nnext",
        isolate = "a\u{2067}b\u{200F}"
    static let arabic = "\u{639}\u{631}\u{636}", family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
    static let placements = [override, nul, controls, isolate, arabic, family]

    func report(_ scratch: TemporaryDirectory) async throws -> String {
        let lines = Self.placements.enumerated().flatMap { index, placement in
            let n = String(format: "%012d", index + 1)
            let source = JSONString.quoted(placement)
            let common =
                #""occurred_at":1764400000000,"user_id":"u\#(index)","catalog_version":1,"pw_id":"01936B2A-7000-7000-8000-\#(n)","source":\#(source)"#
            return [
                #"{"id":"01936B2A-7C00-7000-8000-\#(n)","name":"paywall_shown",\#(common)}"#,
                #"{"id":"01936B2A-7C01-7000-8000-\#(n)","name":"paywall_closed",\#(common),"result":"purchased","via":"auto","open_s":5,"product":\#(JSONString.quoted("p\u{202E}x"))}"#,
            ]
        }
        let db = scratch.path("e.sqlite")
        let imported = try await cli.run(
            ["import", "-", "--db", db], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        let out = scratch.path("out")
        let report = try await cli.run([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out, "--db", db,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        return out
    }

    @Test func hiddenCharactersAreShownAndEveryDataTextIsIsolated() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let out = try await report(scratch)
        let html = try String(contentsOfFile: out + "/report.html", encoding: .utf8)
        let scalars = Set(html.unicodeScalars.map(\.value))
        // Then no hidden character reaches the page raw (only the page's own newlines)
        for hidden: UInt32 in [0x202E, 0x0000, 0x0009, 0x2067, 0x200F] {
            #expect(!scalars.contains(hidden), "U+\(String(hidden, radix: 16)) written raw")
        }
        // And each placement's heading shows them marked, inside <bdi>
        let ctl = { (code: String) in "<span class=\"ctl\">U+\(code)</span>" }
        #expect(html.contains("<q><bdi>\(ctl("202E"))txt.exe</bdi></q>"))
        #expect(html.contains("<q><bdi>nul\(ctl("0000"))x</bdi></q>"))
        #expect(html.contains("<q><bdi>tab\(ctl("0009"))here\(ctl("000A"))next</bdi></q>"))
        #expect(html.contains("<q><bdi>a\(ctl("2067"))b\(ctl("200F"))</bdi></q>"))
        // And table cells of data are isolated too (the product and the placement columns)
        #expect(html.contains("<td><bdi>\(ctl("202E"))txt.exe</bdi></td>"))
        #expect(html.contains("<td><bdi>p\(ctl("202E"))x</bdi></td>"))
        // And the charts' labels name the code point in brackets
        #expect(html.contains("aria-label=\"Funnel of [U+202E]txt.exe\""))
        // And right-to-left text and emoji sequences are shown as they are, isolated
        #expect(html.contains("<q><bdi>\(Self.arabic)</bdi></q>"))
        #expect(html.contains("<q><bdi>\(Self.family)</bdi></q>"))
        // And the CSVs keep the raw bytes
        let summary = try Data(contentsOf: URL(fileURLWithPath: out + "/placement_summary.csv"))
        #expect(summary.range(of: Data(Self.override.utf8)) != nil && summary.range(of: Data(Self.nul.utf8)) != nil)
    }

    @Test func inABrowserTheDataIsIsolatedAndNoOverrideReachesTheDocument() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let out = try await report(scratch)
        let dom = try await BrowserReportTests.browse(out + "/report.html", "--dump-dom", scratch).stdout
        #expect(dom.contains("<h1>Paywall report</h1>"), "the page rendered")
        #expect(
            !dom.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2067 || $0.value == 0 },
            "no hidden character in the DOM")
        #expect(dom.contains("<q><bdi><span class=\"ctl\">U+202E</span>txt.exe</bdi></q>"), "\(dom.prefix(0))")
        let isolated = dom.components(separatedBy: "<bdi>").count - 1
        #expect(isolated >= Self.placements.count * 2, "\(isolated) isolated texts")
    }
}
