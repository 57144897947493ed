import Foundation
import PaywallTestSupport
import Testing

@testable import PaywallCore

/// The six context fields of catalog version 2 refuse control characters (U+0000…U+001F, DEL and the
/// C1 controls), on the validator's fast path and its full path alike, with a reason that names the
/// character; the same values without the character are accepted.
struct ContextControlCharacterTests {
    let validator = EventValidator()

    func outcomes(_ line: String) -> (fast: ValidationOutcome, full: ValidationOutcome, fastRecord: EventRecord?) {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBytes {
            (validator.validate(line: $0), validator.validateFully(line: $0), validator.fast?.record(line: $0))
        }
    }

    static let fields = ["app_version", "build", "os_version", "sdk_version", "locale", "platform"]

    @Test(arguments: fields)
    func aControlCharacterInAContextFieldIsRefusedByBothPaths(_ field: String) {
        // NUL, ESC and a tab escaped; DEL and NEL raw (JSON allows them unescaped)
        let values: [(json: String, code: String)] = [
            (#""3\u00002""#, "U+0000"), (#""3\u001b[31m""#, "U+001B"), (#""3\t2""#, "U+0009"),
            ("\"3\u{7F}2\"", "U+007F"), ("\"3\u{85}2\"", "U+0085"),
        ]
        for (json, code) in values {
            let line = Line.make(["catalog_version": "2"], extra: [(field, json)])
            let (fast, full, record) = outcomes(line)
            #expect(record == nil, "\(field) \(code): the fast path must not accept it")
            #expect(fast == full, "\(field) \(code): both paths give the same outcome")
            guard case .invalid(let issues) = full else {
                Issue.record("\(field) \(code) must be refused, got \(full)")
                continue
            }
            let reason = issues.map(\.description).joined(separator: "; ")
            #expect(reason.contains(field), "\(reason)")
            if field == "platform" {
                // a closed set: any other text, control characters included, is not one of its values
                #expect(reason.contains("must be one of"), "\(reason)")
            } else {
                #expect(reason.contains("must not hold control characters"), "\(reason)")
                #expect(reason.contains("holds \(code)"), "\(reason)")
                #expect(reason.contains("segment"), "\(reason)")
            }
        }
        // the same field without a control character is accepted, by the fast path
        let clean = Line.make(["catalog_version": "2"], extra: [(field, field == "platform" ? #""ios""# : #""3.2""#)])
        let (fast, full, record) = outcomes(clean)
        #expect(record != nil, "\(field): a clean value takes the fast path")
        #expect(fast == full)
        guard case .valid = full else {
            Issue.record("\(field) clean value must be accepted, got \(full)")
            return
        }
    }
}
