import Foundation
import PaywallTestSupport
import Testing

/// Checklist items: the CSV formula guard (and its `--raw` opt-out) and HTML escaping of hostile
/// placements and products, through the built binary.
struct FormulaGuardAndEscapingTests {
    let cli = try! CommandRunner()
    /// Each starts with a character a spreadsheet treats as a formula (= + - @ tab CR).
    static let formulas = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3+4", "@SUM(A1)", "\t=1", "\r=2"]
    static let markup = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "</td></tr></table>&amp;"]

    /// A database where the hostile strings are sources, placements and purchased products (and whole
    /// quarantined lines), with one report folder (guarded) and one `--raw`.
    func hostileDatabase(_ scratch: TemporaryDirectory) async throws -> String {
        let hostile = Self.formulas + Self.markup
        var lines: [String] = []
        for (index, text) in hostile.enumerated() {
            lines.append(Sample.shown(index + 1, source: text, placement: text))
            lines.append(Sample.purchased(index + 1, source: text, product: text))
        }
        lines += Self.formulas.filter { !$0.hasPrefix("\r") }  // whole lines, quarantined as malformed
        let db = scratch.path("h.sqlite")
        let result = try await cli.run([
            "import", try scratch.write("h.ndjson", lines.joined(separator: "\n") + "\n"), "--db", db,
        ])
        #expect(
            result.status == 65
                && result.stdout.hasPrefix("imported \(2 * hostile.count), duplicates 0, conflicts 0, quarantined 5"),
            "\(result.stdout)\(result.stderr)")
        return db
    }

    func outputs(_ db: String, _ scratch: TemporaryDirectory, raw: Bool) async throws -> [String: String] {
        let folder = scratch.path(raw ? "raw" : "guarded")
        let flag = raw ? ["--raw"] : []
        let report = try await cli.run(
            ["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", folder, "--db", db] + flag)
        #expect(report.status == 0, "\(report.stderr)")
        var texts: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".csv") {
            texts[name] = try String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)
        }
        for what in ["events", "funnels", "quarantine"] {
            let export = try await cli.run(["export", what, "--out", "-", "--db", db] + flag)
            #expect(export.status == 0, "\(export.stderr)")
            texts["export \(what)"] = export.stdout
        }
        return texts
    }

    @Test func everyCSVCellStartingAFormulaIsDefusedUnlessRaw() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await hostileDatabase(scratch)
        let guarded = try await outputs(db, scratch, raw: false)
        let raw = try await outputs(db, scratch, raw: true)
        #expect(guarded.count == 12, "9 report CSVs and 3 exports: \(guarded.keys.sorted())")
        for (name, text) in guarded {
            let cells = CSV.cells(text)
            for formula in Self.formulas {
                #expect(!cells.contains(formula), "\(name) has the live formula \(formula.debugDescription)")
            }
            let dangerous = cells.filter { cell in cell.first.map { "=+@\t\r".contains($0) } ?? false }
            #expect(dangerous.isEmpty, "\(name): \(dangerous)")
            let negatives = cells.filter { $0.hasPrefix("-") && Double($0) == nil }
            #expect(negatives.isEmpty, "\(name): \(negatives)")
        }
        for name in ["placement_summary.csv", "product_mix.csv", "export events", "export quarantine"] {
            let guardedCells = CSV.cells(try #require(guarded[name]))
            let rawCells = CSV.cells(try #require(raw[name]))
            for formula in Self.formulas where !(name == "export quarantine" && formula.hasPrefix("\r")) {
                #expect(
                    guardedCells.contains("'" + formula), "\(name) shows \(formula.debugDescription) behind a quote")
                #expect(rawCells.contains(formula), "--raw keeps \(formula.debugDescription) in \(name)")
            }
        }
    }

    @Test func hostilePlacementsAndProductsAreEscapedInTheHTMLReport() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await hostileDatabase(scratch)
        let folder = scratch.path("html")
        #expect(
            try await cli.run(["report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", folder, "--db", db])
                .status == 0)
        let html = try String(contentsOfFile: "\(folder)/report.html", encoding: .utf8)
        #expect(!html.contains("<script"), "no script element at all (the page needs none)")
        #expect(!html.contains("<img"), "no element from data")
        #expect(!html.contains("</td></tr></table>&amp;"), "a placement cannot close the page's table")
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the placement is shown, escaped")
        #expect(
            html.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;")
                || html.contains("&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(html.contains("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&amp;amp;"))
    }
}
