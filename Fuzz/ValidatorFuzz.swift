// libFuzzer target for the NDJSON line validator (`EventValidator.validate(line:)`, which runs
// `FlatJSON.parse`). Built by `scripts/fuzz validator` with swiftc into the PaywallCore module
// (so it sees internal symbols), never by SwiftPM.
//
// Beyond "no crash, no hang", it checks properties that must hold for every input:
//  - the raw-bytes path and the String path agree whenever the bytes are valid UTF-8;
//  - a line accepted as valid yields a record that re-validates with no issue (typed round trip);
//  - parsing is deterministic (twice the same members).
import Foundation

private let validator = EventValidator(catalog: .bundled)

@_cdecl("LLVMFuzzerTestOneInput")
public func validatorFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let outcome = validator.validate(line: bytes)
    let first = try? FlatJSON.parse(bytes)
    let second = try? FlatJSON.parse(bytes)
    precondition(first.map { $0.map(\.key) } == second.map { $0.map(\.key) }, "FlatJSON.parse is not deterministic")
    if let text = String(validating: bytes, as: UTF8.self) {
        let viaString = validator.validate(line: text)
        precondition(viaString == outcome, "String and byte paths disagree")
    }
    if case .valid(let record) = outcome {
        let issues = validator.validate(record)
        precondition(issues.isEmpty, "an accepted line's record does not re-validate: \(issues)")
    }
    return 0
}
