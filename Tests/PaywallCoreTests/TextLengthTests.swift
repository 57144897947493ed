import Foundation
import PaywallSimulation
import Testing

@testable import PaywallCore

/// String limits count Unicode scalars with a UTF-8 byte cap (``TextLength``), the same on the full
/// validator, its fast path and the presentation tracker.
struct TextLengthTests {
    let validator = EventValidator()
    static let source = Catalog.bundled.property(named: "source")!

    /// A `paywall_shown` line whose `source` is `text`, written raw (fast path) or with every
    /// non-ASCII scalar as a JSON escape (which only the full path reads).
    static func line(source text: String, escaped: Bool) -> [UInt8] {
        var literal: [UInt8] = [0x22]
        let hex = Array("0123456789abcdef".utf8)
        func escape(_ unit: UInt16) {
            literal += [0x5C, 0x75] + [12, 8, 4, 0].map { hex[Int((unit >> UInt16($0)) & 15)] }
        }
        for scalar in text.unicodeScalars {  // scalar by scalar, as bytes (fast for 400,000 of them)
            if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 {
                escape(UInt16(scalar.value))
            } else if escaped, scalar.value > 0x7F {
                for unit in String(scalar).utf16 { escape(unit) }
            } else {
                literal += Array(String(scalar).utf8)
            }
        }
        literal.append(0x22)
        return Array(
            (#"{"id":"01936B2A-7C00-7000-8000-000000000001","name":"paywall_shown","occurred_at":1764400000000,"#
                + #""user_id":"u1","catalog_version":1,"pw_id":"01936B2A-7000-7000-8000-000000000001","source":"#).utf8)
            + literal + [0x7D]
    }

    static let cases: [(String, String, String?)] = [
        ("a + 400,000 combining acute accents", "a" + String(repeating: "\u{301}", count: 400_000), "max_length"),
        ("65 regional indicators", String(repeating: "\u{1F1FA}", count: 65), "max_length"),
        ("64 é (precomposed, 128 bytes)", String(repeating: "\u{E9}", count: 64), nil),
        ("32 é decomposed (64 scalars)", String(repeating: "e\u{301}", count: 32), nil),
        ("33 é decomposed (66 scalars)", String(repeating: "e\u{301}", count: 33), "max_length"),
        ("64 ASCII", String(repeating: "s", count: 64), nil),
        ("65 ASCII", String(repeating: "s", count: 65), "max_length"),
        ("é + 40 CRLF (81 scalars)", "\u{E9}" + String(repeating: "\r\n", count: 40), "max_length"),
        ("64 CJK (192 bytes)", String(repeating: "\u{4E2D}", count: 64), nil),
        ("48 emoji (192 bytes)", String(repeating: "\u{1F600}", count: 48), nil),
        ("49 emoji (196 bytes)", String(repeating: "\u{1F600}", count: 49), "max_bytes"),
        ("64 regional indicators (256 bytes)", String(repeating: "\u{1F1FA}", count: 64), "max_bytes"),
        ("empty", "", "min_length"),
    ]

    @Test(arguments: 0..<cases.count)
    func everyPathAppliesTheSameLimit(index: Int) throws {
        let (label, text, rule) = Self.cases[index]
        // Then the full path (raw and escaped), the fast path and the tracker's check agree with the expected rule
        for escaped in [false, true] {
            let bytes = Self.line(source: text, escaped: escaped)
            let full = bytes.withUnsafeBytes { validator.validateFully(line: $0) }
            let outcome = bytes.withUnsafeBytes { validator.validate(line: $0) }
            #expect(outcome == full, "\(label)")
            switch full {
            case .valid(let record):
                #expect(rule == nil, "\(label) (escaped: \(escaped)) accepted")
                #expect(Array(record.properties.source.unicodeScalars) == Array(text.unicodeScalars))
            case .invalid(let issues):
                #expect(issues.map(\.rule) == [rule ?? "none"], "\(label) (escaped: \(escaped)): \(issues)")
                #expect(
                    issues.allSatisfy { $0.description.unicodeScalars.count < 300 },
                    "\(label): the reason quotes a bounded value")
            }
            let fast = bytes.withUnsafeBytes { validator.fast?.record(line: $0) }
            #expect((fast != nil) == (rule == nil) || escaped, "\(label): the fast path")
        }
        #expect(Self.source.lengthProblem(TextLength(text))?.rule == rule, "\(label)")
        do {
            try PresentationTracker.check("source", text)
            #expect(rule == nil, "\(label): the tracker accepted it")
        } catch {
            guard case .invalidValue(let issue) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(issue.rule == rule, "\(label): the tracker")
        }
    }

    @Test func randomStringsGetTheSameVerdictOnTheFastAndTheFullPath() {
        // Given 3,000 random strings around the limits, mixing 1-, 2-, 3- and 4-byte scalars and combining marks
        var random = SeededGenerator(seed: 2026)
        let pools: [[Unicode.Scalar]] = [
            ["a", "Z", "0", " ", "-"], ["\u{E9}", "\u{FC}", "\u{3A9}", "\u{301}", "\u{308}"],
            ["\u{4E2D}", "\u{20AC}", "\u{200D}", "\u{FE0F}"], ["\u{1F600}", "\u{1F1FA}", "\u{1F44D}", "\u{10FFFF}"],
        ]
        var accepted = 0
        var refused = 0
        for round in 0..<3_000 {
            let count = Int.random(in: 0...80, using: &random)
            var text = String.UnicodeScalarView()
            let mix = Int.random(in: 0..<16, using: &random)
            for _ in 0..<count {
                var pool = Int.random(in: 0..<4, using: &random)
                if mix & (1 << pool) == 0 { pool = 0 }
                text.append(pools[pool].randomElement(using: &random)!)
            }
            let string = String(text)
            let bytes = Self.line(source: string, escaped: false)
            // Then the fast path accepts exactly when the full path does, and both follow TextLength
            let full = bytes.withUnsafeBytes { validator.validateFully(line: $0) }
            let fast = bytes.withUnsafeBytes { validator.fast?.record(line: $0) }
            let expected = Self.source.lengthProblem(TextLength(string)) == nil
            if case .valid(let record) = full {
                #expect(expected, "round \(round): \(string.unicodeScalars.map { String($0.value, radix: 16) })")
                #expect(fast == record, "round \(round): the fast path disagrees")
                accepted += 1
            } else {
                #expect(!expected, "round \(round)")
                #expect(fast == nil, "round \(round): the fast path accepted what the full path refused")
                refused += 1
            }
        }
        #expect(accepted > 500 && refused > 500, "accepted \(accepted), refused \(refused)")
    }

    @Test func theCatalogRefusesAByteCapBelowTheScalarLimit() throws {
        var spec = Self.source
        spec.maxBytes = 10
        #expect(
            CatalogChecker.boundProblems(spec, at: "source").contains {
                $0.message.contains("max_bytes 10 is less than max_length 64")
            })
        spec.maxBytes = 64
        #expect(CatalogChecker.boundProblems(spec, at: "source").isEmpty)
        spec.type = "integer"
        #expect(
            CatalogChecker.boundProblems(spec, at: "source").contains {
                $0.message.contains("max_bytes apply to strings only")
            })
    }
}
