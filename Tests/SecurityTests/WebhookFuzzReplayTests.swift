import Foundation
import PaywallSubscriptions
import Testing

/// Replays the webhook fuzzer's seeds, corpus and crashers (Fuzz/…/webhook) through the properties
/// its harness checks (Fuzz/WebhookFuzz.swift), in the normal test suite.
struct WebhookFuzzReplayTests {
    @Test func everyWebhookInputKeepsTheFuzzedProperties() throws {
        let inputs = try FuzzCorpusReplayTests.inputs("webhook")
        #expect(inputs.count >= 15, "the corpus is committed: \(inputs.count) inputs")
        var accepted = 0
        for url in inputs {
            let name = url.lastPathComponent
            let bytes = [UInt8](try Data(contentsOf: url))
            let parsed = try? WebhookJSON.parse(bytes)
            #expect((try? WebhookJSON.parse(bytes)) == parsed, "\(name): parsing is not deterministic")
            if let parsed {
                #expect(
                    (try? WebhookJSON.parse(Array(parsed.jsonText.utf8))) == parsed,
                    "\(name): written back, it parses differently")
            }
            switch WebhookExtraction.extract(bytes) {
            case .success(let event):
                accepted += 1
                #expect(parsed != nil && !event.id.isEmpty, "\(name)")
                let keys = event.customerKeys.map { Array($0.utf8) }
                #expect(Set(keys).count == keys.count && !keys.contains([]), "\(name): customer keys")
                #expect((event.priceMicros == nil) == (event.proceedsMicros == nil), "\(name): proceeds and price")
            case .failure(let problems):
                #expect(!problems.reasons.isEmpty && !problems.reasons.contains(""), "\(name): reasons")
                if parsed == nil {
                    #expect(
                        problems.reasons.count == 1 && problems.reasons[0].hasPrefix("the body is not JSON"),
                        "\(name): \(problems.reasons)")
                }
            }
        }
        #expect(accepted >= 5, "the corpus keeps accepted bodies too (\(accepted))")
    }

    @Test func writtenBackTextEscapesWhatJSONRequires() throws {
        let value = WebhookJSON.object([
            (key: "a\"b\\c", value: .string("line\nbreak\u{01}tab\t\u{1F600}")), (key: "n", value: .number("-1.5e-3")),
        ])
        #expect(value.jsonText == #"{"a\"b\\c":"line\nbreak\u0001tab\t😀","n":-1.5e-3}"#)
        #expect(try WebhookJSON.parse(Array(value.jsonText.utf8)) == value)
    }
}
