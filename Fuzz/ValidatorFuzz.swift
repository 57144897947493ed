// libFuzzer target for the NDJSON line validator (`EventValidator.validate(line:)`, which runs
// `FlatJSON.parse`). Built by `scripts/fuzz validator` with swiftc into the PaywallCore module
// (so it sees internal symbols), never by SwiftPM.
//
// Beyond "no crash, no hang", it checks properties that must hold for every input:
//  - the raw-bytes path and the String path agree whenever the bytes are valid UTF-8;
//  - a line accepted as valid yields a record that re-validates with no issue (typed round trip);
//  - parsing is deterministic (twice the same members);
//  - the validator's fast path (FastPlan) only accepts what the full path accepts, with the same
//    record, and `validate(line:)` always gives the full path's outcome, reasons included.
import Foundation

private let validator = EventValidator(catalog: .bundled)

@_cdecl("LLVMFuzzerTestOneInput")
public func validatorFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let outcome = validator.validate(line: bytes)
    let full = validator.validateFully(line: bytes)
    precondition(outcome == full, "validate(line:) differs from the full path: \(outcome) vs \(full)")
    if let record = validator.fast?.record(line: bytes) {
        precondition(full == .valid(record), "the fast path accepted a line the full path judges \(full)")
    }
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
