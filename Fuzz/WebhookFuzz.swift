// libFuzzer target for the RevenueCat webhook body reader: `WebhookJSON.parse` and
// `WebhookExtraction.extract` (what the collector's webhook route and `import --revenuecat` run on
// every body). Built by `scripts/fuzz webhook` with swiftc into one module with the
// PaywallSubscriptions sources it needs, never by SwiftPM.
//
// Beyond "no crash, no hang", for every input:
//  - parsing is deterministic, and a parsed value written back (`jsonText`) parses to an equal value;
//  - a body that is not JSON is refused with exactly one reason, saying so;
//  - an accepted body has a non-empty id, customer keys that are non-empty and each once, and
//    proceeds exactly when it has a price;
//  - a refused body has at least one reason, none empty.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func webhookFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let parsed = try? WebhookJSON.parse(bytes)
    precondition((try? WebhookJSON.parse(bytes)) == parsed, "parsing is not deterministic")
    if let parsed {
        precondition((try? WebhookJSON.parse(Array(parsed.jsonText.utf8))) == parsed, "a written-back value parses differently")
    }
    switch WebhookExtraction.extract(bytes) {
    case .success(let event):
        precondition(parsed != nil, "an accepted body does not parse")
        precondition(!event.id.isEmpty, "an accepted body without an id")
        let keys = event.customerKeys.map { Array($0.utf8) }
        precondition(Set(keys).count == keys.count && !keys.contains([]), "customer keys repeat or are empty")
        precondition((event.priceMicros == nil) == (event.proceedsMicros == nil), "proceeds without a price, or the reverse")
    case .failure(let problems):
        precondition(!problems.reasons.isEmpty && !problems.reasons.contains(""), "a refusal without a reason")
        if parsed == nil {
            precondition(
                problems.reasons.count == 1 && problems.reasons[0].hasPrefix("the body is not JSON"),
                "a body that does not parse is refused for another reason")
        }
    }
    return 0
}
