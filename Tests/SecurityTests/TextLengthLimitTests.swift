import Foundation
import PaywallTestSupport
import Testing

/// The `source` limit through the built binary: 64 Unicode scalars and 192 UTF-8 bytes, whether the
/// line is written raw (the validator's fast path) or with JSON escapes (the full path).
struct TextLengthLimitTests {
    let cli = try! CommandRunner()

    /// The cases; escaped, the combining accents are 6 bytes each, so 150,000 keep the line under 1 MB.
    static func cases(escaped: Bool) -> [(label: String, source: String, refusal: String?)] {
        let marks = escaped ? 150_000 : 400_000
        return [
            (
                "a + \(marks) combining accents", "a" + String(repeating: "\u{301}", count: marks),
                "must be at most 64 Unicode scalars (this one has \(marks + 1))"
            ),
            (
                "65 regional indicators", String(repeating: "\u{1F1FA}", count: 65),
                "must be at most 64 Unicode scalars (this one has 65)"
            ),
            ("64 é", String(repeating: "\u{E9}", count: 64), nil),
            ("65 ASCII", String(repeating: "p", count: 65), "must be at most 64 Unicode scalars (this one has 65)"),
            ("64 ASCII", String(repeating: "p", count: 64), nil),
            (
                "é + 40 CRLF", "\u{E9}" + String(repeating: "\r\n", count: 40),
                "must be at most 64 Unicode scalars (this one has 81)"
            ),
            ("48 emoji", String(repeating: "\u{1F600}", count: 48), nil),
            (
                "49 emoji", String(repeating: "\u{1F600}", count: 49),
                "must be at most 192 bytes of UTF-8 (this one has 196)"
            ),
        ]
    }

    @Test(arguments: [false, true])
    func theSourceLimitIsSixtyFourScalarsAndAByteCapOnEveryPath(escaped: Bool) async throws {
        // Given one line per case, the non-ASCII text raw or as \u escapes
        let scratch = TemporaryDirectory(prefix: "security")
        let cases = Self.cases(escaped: escaped)
        var lines: [String] = []
        for (index, item) in cases.enumerated() {
            var line = Sample.shown(index + 1, source: item.source)
            if escaped {
                let text = Sample.json(item.source)
                line = line.replacingOccurrences(of: text, with: Self.escapedJSON(item.source))
            }
            lines.append(line)
        }
        let path = scratch.path("limits.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        // When they are imported
        let result = try await cli.run(["import", path, "--db", scratch.path("e.sqlite")])
        // Then exactly the cases within the limits are stored, and each refusal names its limit
        let refused = cases.filter { $0.refusal != nil }.count
        #expect(
            result.stdout.hasPrefix(
                "imported \(cases.count - refused), duplicates 0, conflicts 0, quarantined \(refused)"),
            "\(result.stdout)")
        let quarantine = try await cli.run([
            "export", "quarantine", "--raw", "--out", "-", "--db", scratch.path("e.sqlite"),
        ])
        for (index, item) in cases.enumerated() {
            guard let refusal = item.refusal else { continue }
            let row = quarantine.stdout.components(separatedBy: "\r\n").first {
                $0.contains("limits.ndjson,\(index + 1),")
            }
            #expect(row?.contains(refusal) == true, "\(item.label): \(row?.prefix(300) ?? "no row")")
        }
        let longRow = quarantine.stdout.components(separatedBy: "\r\n").first { $0.contains("limits.ndjson,1,") } ?? ""
        let reasons = CSV.cells(longRow + "\r\n").dropFirst(2).first ?? ""
        #expect(reasons.utf8.count < 1_000, "the reason quotes a shortened value, not the 800 KB one")
        let events = try await cli.run(["export", "events", "--raw", "--out", "-", "--db", scratch.path("e.sqlite")])
        for item in cases where item.refusal == nil {
            #expect(
                events.stdout.unicodeScalars.split(separator: ",").contains {
                    String(String.UnicodeScalarView($0)) == item.source
                },
                "\(item.label) stored exactly")
        }
    }

    /// `text` as a JSON string literal with every non-ASCII scalar as `\uXXXX` (surrogate pairs beyond the BMP).
    static func escapedJSON(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in Sample.json(text).unicodeScalars {
            guard scalar.value > 0x7F else {
                out.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(out)
    }
}
