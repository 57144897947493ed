import Foundation
import PaywallWire
import Testing

/// The hand-written bytes and the `Codable` conformance describe the same answer.
struct CollectorAnswerRoundTripTests {
    static let answers = [
        CollectorAnswer(counts: EventCounts(accepted: 1000)),
        CollectorAnswer(counts: EventCounts(accepted: 0, duplicates: 0, quarantined: 0, suppressed: 7)),
        CollectorAnswer(
            counts: EventCounts(accepted: 3, duplicates: 2, quarantined: 2, suppressed: 1),
            rejected: [
                .init(line: 4, reasons: ["unknown event \"paywall_opened\"", "a/b é 😀 \u{01}\n"]),
                .init(line: 0, reasons: []),
            ]),
    ]

    @Test(arguments: answers)
    func theWireBytesDecodeIntoTheSameAnswer(answer: CollectorAnswer) throws {
        // When the collector's bytes are decoded with the Codable conformance / Then the answer is the same
        #expect(try JSONDecoder().decode(CollectorAnswer.self, from: Data(answer.json.utf8)) == answer)
        // And the uploader reads the same counts from them
        #expect(CollectorAnswer.counts(in: Data(answer.json.utf8)) == answer.counts)
    }

    @Test(arguments: answers)
    func theCodableEncodingDecodesIntoTheSameAnswer(answer: CollectorAnswer) throws {
        // When the answer goes through JSONEncoder and back / Then nothing is lost
        let encoded = try JSONEncoder().encode(answer)
        #expect(try JSONDecoder().decode(CollectorAnswer.self, from: encoded) == answer)
        #expect(CollectorAnswer.counts(in: encoded) == answer.counts)
        // And suppressed is on the wire only when above 0, in the Codable form as in the bytes
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect((object["suppressed"] != nil) == (answer.suppressed > 0))
        #expect(answer.json.contains("\"suppressed\"") == (answer.suppressed > 0))
    }

    @Test func anAnswerWithoutSuppressedOrRejectedDecodes() throws {
        // Given the shortest answer a collector may give (no suppressed, no rejected)
        let body = Data(#"{"accepted":5,"duplicates":1,"quarantined":0}"#.utf8)
        // Then both readings take it, suppressed 0 and no rejection
        let answer = try JSONDecoder().decode(CollectorAnswer.self, from: body)
        #expect(answer == CollectorAnswer(counts: EventCounts(accepted: 5, duplicates: 1)))
        #expect(CollectorAnswer.counts(in: body) == EventCounts(accepted: 5, duplicates: 1))
    }
}
