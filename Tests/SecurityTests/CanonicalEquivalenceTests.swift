import Foundation
import PaywallTestSupport
import Testing

/// A placement (or product) is its exact sequence of Unicode scalars everywhere, through the built
/// binary: `caf\u{E9}` and `cafe\u{301}`, `Kiosk` and `\u{212A}iosk` (Kelvin sign) are canonically
/// equivalent for Swift's `String ==` but four placements here — in `--placement` filters, every CSV,
/// `export funnels`, the HTML sections and their charts, and the code-point order.
struct CanonicalEquivalenceTests {
    let cli = try! CommandRunner()
    static let nfc = "caf\u{E9}", nfd = "cafe\u{301}", ascii = "Kiosk", kelvin = "\u{212A}iosk"
    /// Presentations per placement (each shown and purchased), products alternating between two spellings.
    static let counts = [(nfc, 3), (nfd, 2), (ascii, 1), (kelvin, 4)]
    static let productNFC = "pro\u{E9}", productNFD = "proe\u{301}"

    func store(_ scratch: TemporaryDirectory) async throws -> String {
        var lines: [String] = []
        var n = 0
        for (placement, count) in Self.counts {
            for k in 0..<count {
                n += 1
                lines.append(Sample.shown(n, source: placement))
                lines.append(
                    Sample.purchased(n, source: placement, product: k % 2 == 0 ? Self.productNFC : Self.productNFD))
            }
        }
        let db = scratch.path("e.sqlite")
        let result = try await cli.run(
            ["import", "-", "--db", db], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        return db
    }

    /// The CSV's records as cells (header dropped), compared by bytes.
    func records(_ path: String) throws -> [[Data]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
        return lines.map { CSV.cells($0 + "\r\n").map { Data($0.utf8) } }
    }

    func bytes(_ text: String) -> Data { Data(text.utf8) }

    @Test func aPlacementFilterSelectsExactlyOneSpellingInEveryReportAndExport() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await store(scratch)
        for (placement, count) in Self.counts {
            // When a report and the funnels export are filtered on one spelling
            let out = scratch.path("r-\(count)")
            let report = try await cli.run([
                "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out,
                "--placement", placement, "--db", db,
            ])
            #expect(report.status == 0, "\(report.stderr)")
            // Then the summary has that placement alone, with its own count
            let summary = try records(out + "/placement_summary.csv")
            #expect(summary.map { $0[0] } == [bytes(placement)], "\(placement.unicodeScalars.map(\.value))")
            #expect(summary.first?[1] == bytes(String(count)))
            // And no CSV of the run holds another placement's spelling
            for name in ["encounter_funnel", "conversion_funnel", "product_mix", "cohort_conversion"] {
                let rows = try records(out + "/\(name).csv")
                let column = name == "product_mix" ? 0 : 1
                #expect(
                    rows.allSatisfy { $0[column] == bytes(placement) },
                    "\(name) for \(placement.unicodeScalars.map(\.value))")
                #expect(!rows.isEmpty, "\(name)")
            }
            let funnels = try await cli.run([
                "export", "funnels", "--placement", placement, "--raw", "--out", "-", "--db", db,
            ])
            let funnelRows = funnels.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                .map { CSV.cells($0 + "\r\n").map { Data($0.utf8) } }
            #expect(
                funnelRows.map { $0[1] } == [bytes(placement)],
                "export funnels for \(placement.unicodeScalars.map(\.value))")
            let events = try await cli.run([
                "export", "events", "--placement", placement, "--raw", "--out", "-", "--db", db,
            ])
            let eventRows = events.stdout.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                .map { CSV.cells($0 + "\r\n").map { Data($0.utf8) } }
            #expect(
                eventRows.count == 2 * count && eventRows.allSatisfy { $0[10] == bytes(placement) }, "export events")
        }
    }

    @Test func theFullReportKeepsFourPlacementsInCodePointOrderWithTheirOwnHTMLSections() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = try await store(scratch)
        let out = scratch.path("all")
        let report = try await cli.run([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out, "--db", db,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        // Then the summary has the four placements in code-point order, each with its count
        let summary = try records(out + "/placement_summary.csv")
        let order = [Self.ascii, Self.nfd, Self.nfc, Self.kelvin]
        #expect(summary.map { $0[0] } == order.map(bytes))
        let expected = Dictionary(uniqueKeysWithValues: Self.counts.map { (bytes($0.0), bytes(String($0.1))) })
        #expect(summary.allSatisfy { expected[$0[0]] == $0[1] })
        // And the products keep their two spellings apart at each placement
        let mix = try records(out + "/product_mix.csv")
        for (placement, count) in Self.counts {
            let rows = mix.filter { $0[0] == bytes(placement) }
            let byProduct = Dictionary(uniqueKeysWithValues: rows.map { ($0[1], $0[2]) })
            #expect(
                byProduct[bytes(Self.productNFC)] == bytes(String((count + 1) / 2)),
                "\(placement.unicodeScalars.map(\.value))")
            #expect(byProduct[bytes(Self.productNFD)] == (count / 2 == 0 ? nil : bytes(String(count / 2))))
        }
        // And the nightly job (day partials merged) gives the same summary and product mix
        let nightly = scratch.path("nightly")
        let run = try await cli.run([
            "report", "--nightly", "--now", "2025-11-30T12:00:00Z", "--out", nightly, "--db", db,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["placement_summary.csv", "product_mix.csv"] {
            let folder = FileManager.default.fileExists(atPath: nightly + "/" + name) ? nightly : nightly + "/current"
            #expect(try records(folder + "/" + name) == (try records(out + "/" + name)), "\(name) of the nightly run")
        }
        // And report.html has one section per placement, in that order, each with its own figures and one
        // chart point per day in each of its two trend charts
        let html = try Data(contentsOf: URL(fileURLWithPath: out + "/report.html"))
        let marker = bytes("<section class=\"placement\">")
        var sections: [Data] = []
        var rest = html[...]
        while let found = rest.range(of: marker) {
            let end = try #require(rest[found.upperBound...].range(of: bytes("</section>")))
            sections.append(Data(rest[found.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        #expect(sections.count == 4, "\(sections.count) placement sections")
        for (index, placement) in order.enumerated() where index < sections.count {
            let section = sections[index]
            #expect(
                section.range(of: bytes(placement)) != nil,
                "section \(index) is \(placement.unicodeScalars.map(\.value))")
            for other in order where other != placement && !other.utf8.elementsEqual(placement.utf8) {
                #expect(
                    section.range(of: bytes("<q>" + other)) == nil && section.range(of: bytes(">" + other + "<")) == nil
                )
            }
            let count = Self.counts.first { $0.0.utf8.elementsEqual(placement.utf8) }!.1
            let figure = bytes("<span class=\"number\">\(count)</span><span class=\"caption\">presentations</span>")
            #expect(section.range(of: figure) != nil, "section \(index): \(count) presentations")
            var circles = 0
            var scan = section[...]
            while let dot = scan.range(of: bytes("<circle")) {
                circles += 1
                scan = scan[dot.upperBound...]
            }
            #expect(circles == 2, "section \(index): \(circles) chart points")
        }
    }
}
