import Foundation
import PaywallCore
import PaywallWire
import Testing

/// The answer's bytes on the wire are the ones the collector wrote before the answer had a type.
struct CollectorAnswerBytesTests {
    /// The collector's answer as it was written before `CollectorAnswer` (a hand-written string built
    /// from the commit's counts and the quarantined lines), kept here as the reference.
    static func before(_ counts: EventCounts, _ quarantine: [(line: Int?, reasons: [String])]) -> String {
        var out =
            "{\"accepted\":\(counts.accepted),\"duplicates\":\(counts.duplicates),\"quarantined\":\(counts.quarantined),"
        if counts.suppressed > 0 { out += "\"suppressed\":\(counts.suppressed)," }
        out += "\"rejected\":["
        for (index, entry) in quarantine.enumerated() {
            if index > 0 { out += "," }
            out +=
                "{\"line\":\(entry.line ?? 0),\"reasons\":["
                + entry.reasons.map(JSONString.quoted).joined(separator: ",") + "]}"
        }
        return out + "]}"
    }

    static func answer(_ counts: EventCounts, _ quarantine: [(line: Int?, reasons: [String])]) -> CollectorAnswer {
        CollectorAnswer(counts: counts, rejected: quarantine.map { .init(line: $0.line ?? 0, reasons: $0.reasons) })
    }

    @Test(
        arguments: [
            (
                EventCounts(accepted: 6), [],
                #"{"accepted":6,"duplicates":0,"quarantined":0,"rejected":[]}"#
            ),
            (
                EventCounts(accepted: 0, duplicates: 0, quarantined: 0, suppressed: 1), [],
                #"{"accepted":0,"duplicates":0,"quarantined":0,"suppressed":1,"rejected":[]}"#
            ),
            (
                EventCounts(accepted: 2, duplicates: 1, quarantined: 2, suppressed: 3),
                [(line: 3, reasons: ["missing field \"id\"", "a/b é\n\t\u{01}\\"]), (line: nil, reasons: [])],
                #"{"accepted":2,"duplicates":1,"quarantined":2,"suppressed":3,"rejected":[{"line":3,"reasons":["missing field \"id\"","a/b é\n\t\u0001\\"]},{"line":0,"reasons":[]}]}"#
            ),
        ] as [(EventCounts, [(line: Int?, reasons: [String])], String)])
    func theAnswerIsWrittenAsBefore(
        counts: EventCounts, quarantine: [(line: Int?, reasons: [String])], expected: String
    ) {
        // Given the counts and quarantined lines of one request / When the answer is written
        let json = Self.answer(counts, quarantine).json
        // Then it is exactly today's bytes, and what the collector built before the type
        #expect(json == expected)
        #expect(json == Self.before(counts, quarantine))
    }

    @Test func everyGeneratedAnswerIsWrittenAsBefore() {
        // Given answers with every kind of count and reason (escapes, non-ASCII, control characters)
        let pieces = [
            "", "x", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{1F}", "é", "😀", "\u{2028}",
        ]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let counts = EventCounts(
                accepted: round % 7, duplicates: round % 3, quarantined: round % 5,
                suppressed: round % 4 == 0 ? 0 : round)
            let quarantine = (0..<(round % 4)).map { index in
                (
                    line: index == 1 ? nil : Int?(round + index),
                    reasons: (0..<(index % 3)).map { _ in
                        (0..<4).map { _ in pieces.randomElement(using: &generator)! }.joined()
                    }
                )
            }
            // When it is written / Then the bytes are the ones the collector wrote before
            #expect(Self.answer(counts, quarantine).json == Self.before(counts, quarantine))
        }
    }
}
