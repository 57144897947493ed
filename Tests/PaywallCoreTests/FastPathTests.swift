import Foundation
import PaywallSimulation
import PaywallTestSupport
import Testing

@testable import PaywallCore

/// The validator's fast path (``FastPlan``) against the full path it shortcuts: whenever the
/// fast path accepts a line, the full path accepts it too with the same record; every outcome of
/// `validate(line:)` equals the full path's, reasons included.
struct FastPathTests {
    let validator = EventValidator()

    func fullOutcome(_ bytes: [UInt8]) -> ValidationOutcome {
        bytes.withUnsafeBytes { validator.validateFully(line: $0) }
    }
    func outcome(_ bytes: [UInt8]) -> ValidationOutcome { bytes.withUnsafeBytes { validator.validate(line: $0) } }
    func fastRecord(_ bytes: [UInt8]) -> EventRecord? { bytes.withUnsafeBytes { validator.fast?.record(line: $0) } }

    /// Checks one line; returns whether the fast path accepted it.
    @discardableResult
    func agree(_ bytes: [UInt8], _ label: @autoclosure () -> String) -> Bool {
        let full = fullOutcome(bytes)
        #expect(outcome(bytes) == full, "\(label()): validate(line:) differs from the full path")
        guard let record = fastRecord(bytes) else { return false }
        #expect(full == .valid(record), "\(label()): the fast path accepted what the full path judges \(full)")
        return true
    }

    /// Varied valid lines of every event: optional fields present, absent or null, Unicode text,
    /// keys reordered, whitespace, numbers in every JSON form.
    static func generatedLines(_ count: Int, seed: UInt64) -> [String] {
        var random = SeededGenerator(seed: seed)
        let sources = ["onboarding", "settings", "é", "📱 home", "a", String(repeating: "s", count: 64), "ü😀x"]
        let opens = [
            "0", "12.5", "0.1", "86400", "86400.0", "1e2", "1.5E+3", "0.000001", "123456789012.3456",
            "3.141592653589793238", "-0", "-0.0", "7", "0.30000000000000004", "8.64e4", "2.5e-300",
        ]
        return (0..<count).map { index in
            let time = 1_764_400_000_000 + Int64(index) * 997
            let pwID = UUIDv7.make(milliseconds: time, using: &random).uuidString
            // Both catalog versions; the vias of version 2 only in events of version 2.
            let version = random.chance(0.5) ? 2 : 1
            let dismissVias = ["close_button", "continue_free"] + (version == 2 ? ["gesture", "abandoned"] : [])
            var fields: [(String, String)] = [
                ("id", "\"\(UUIDv7.make(milliseconds: time, using: &random).uuidString)\""),
                ("occurred_at", "\(time)"), ("user_id", "\"user-\(index)\""), ("catalog_version", "\(version)"),
                ("pw_id", "\"\(random.chance(0.5) ? pwID : pwID.lowercased())\""),
                ("source", JSONString.quoted(sources[index % sources.count])),
            ]
            if random.chance(0.5) { fields.append(("session_id", random.chance(0.5) ? "null" : "\"\(pwID)\"")) }
            if random.chance(0.3) { fields.append(("recorded_at", "\(time + 5)")) }
            // The context fields of version 2 only in events of version 2 (present, null or absent).
            if version == 2 {
                let context: [(String, String)] = [
                    (
                        "app_version",
                        JSONString.quoted(["3.2.0", "1.0", "2.0 βeta", String(repeating: "9", count: 64)][index % 4])
                    ),
                    ("build", "\"\(400 + index)\""),
                    ("platform", "\"\(["ios", "android", "web", "ipados"][index % 4])\""),
                    ("os_version", "\"17.4.1\""), ("sdk_version", "\"0.1.0\""), ("locale", "\"pt-BR\""),
                ]
                for field in context where random.chance(0.6) {
                    fields.append(random.chance(0.1) ? (field.0, "null") : field)
                }
            }
            switch index % 4 {
            case 0:
                fields.append(("name", "\"paywall_shown\""))
                if random.chance(0.5) { fields.append(("offering_id", random.chance(0.2) ? "null" : "\"default\"")) }
                if random.chance(0.5) { fields.append(("placement_id", "\"pl_\(index)\"")) }
            case 1, 2:
                fields.append(("name", index % 4 == 1 ? "\"paywall_plan_selected\"" : "\"paywall_purchase_started\""))
                fields.append(("product", "\"annual\""))
            default:
                let result = ["purchased", "restored", "dismissed"][index % 3]
                fields.append(("name", "\"paywall_closed\""))
                fields.append(("result", "\"\(result)\""))
                fields.append(
                    (
                        "via",
                        result == "dismissed"
                            ? "\"\(dismissVias.randomElement(using: &random)!)\"" : "\"auto\""
                    ))
                fields.append(("open_s", opens[index % opens.count]))
                if result == "purchased" || random.chance(0.5) { fields.append(("product", "\"pro_monthly\"")) }
            }
            fields.shuffle(using: &random)
            let gap = random.chance(0.1) ? " \t" : ""
            return gap + "{" + fields.map { "\(gap)\"\($0.0)\"\(gap):\(gap)\($0.1)" }.joined(separator: ",") + "}" + gap
        }
    }

    @Test func theFastPathRefusesAViaNewerThanTheEventsVersionAndAcceptsItInItsVersion() {
        for via in ["gesture", "abandoned"] {
            let line: (String) -> [UInt8] = { version in
                Array(
                    Line.make([
                        "catalog_version": version, "result": #""dismissed""#, "via": "\"\(via)\"", "product": nil,
                    ]).utf8)
            }
            #expect(fastRecord(line("1")) == nil, "\(via) in a version-1 event must go to the full path")
            #expect(fastRecord(line("2"))?.properties.via?.rawValue == via)
        }
    }

    @Test func theFastPathRefusesAContextFieldInAVersionOneEventAndReadsItInAVersionTwoEvent() {
        let fields: [(String, String, KeyPath<EventContext, String?>)] = [
            ("app_version", "3.2.0", \.appVersion), ("build", "412", \.build), ("os_version", "17.4", \.osVersion),
            ("sdk_version", "0.1.0", \.sdkVersion), ("locale", "en-US", \.locale), ("platform", "ios", \.platformText),
        ]
        for (field, value, path) in fields {
            let line: (String) -> [UInt8] = { version in
                Array(Line.make(["catalog_version": version], extra: [(field, "\"\(value)\"")]).utf8)
            }
            #expect(fastRecord(line("1")) == nil, "\(field) in a version-1 event must go to the full path")
            #expect(agree(line("1"), "\(field) v1") == false)
            #expect(fastRecord(line("2"))?.context[keyPath: path] == value, "\(field)")
            #expect(agree(line("2"), "\(field) v2"))
            // null is absent, in either version
            #expect(agree(Array(Line.make(["catalog_version": "1"], extra: [(field, "null")]).utf8), "\(field) null"))
        }
        // Values outside the limits go to the full path (which refuses them)
        for (field, value) in [
            ("app_version", String(repeating: "1", count: 65)), ("os_version", String(repeating: "1", count: 33)),
            ("locale", String(repeating: "a", count: 36)), ("platform", "linux"), ("platform", "iOS"),
            ("build", ""),
        ] {
            let bytes = Array(Line.make(["catalog_version": "2"], extra: [(field, "\"\(value)\"")]).utf8)
            #expect(fastRecord(bytes) == nil, "\(field)=\(value)")
            #expect(agree(bytes, "\(field)=\(value)") == false)
            guard case .invalid = fullOutcome(bytes) else {
                Issue.record("\(field)=\(value) must be refused")
                continue
            }
        }
    }

    @Test func theBundledCatalogHasAFastPath() {
        #expect(validator.fast != nil)
    }

    @Test func everyGeneratedValidLineTakesTheFastPathWithTheFullPathsRecord() {
        // Given varied valid lines of every event
        let lines = Self.generatedLines(4_000, seed: 7)
        // When each is validated by both paths
        var fast = 0
        for (index, line) in lines.enumerated() where agree(Array(line.utf8), "line \(index): \(line)") { fast += 1 }
        // Then all are valid, with equal records, and the fast path took every one
        #expect(lines.allSatisfy { if case .valid = fullOutcome(Array($0.utf8)) { true } else { false } })
        #expect(fast == lines.count)
    }

    @Test func mutatedLinesGetTheFullPathsOutcome() {
        // Given valid lines with one byte replaced, inserted or deleted, many times over
        var random = SeededGenerator(seed: 11)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \naAfFnultr_"#.utf8) + [0x00, 0x80, 0xC3, 0xFF]
        var mutations = 0
        for line in Self.generatedLines(400, seed: 3) {
            for _ in 0..<60 {
                var bytes = Array(line.utf8)
                let position = Int.random(in: 0..<bytes.count, using: &random)
                let byte = alphabet.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
                // When both paths judge it
                // Then they agree
                agree(bytes, "mutation of \(line): \(String(decoding: bytes, as: UTF8.self))")
                mutations += 1
            }
        }
        #expect(mutations == 24_000)
    }

    @Test func everyFuzzInputAndEveryRuleCaseGetsTheFullPathsOutcome() throws {
        // Given the fuzzers' seeds and minimized corpus (valid lines, every rule broken, odd JSON)
        let root = Golden.packageRoot(from: #filePath).appendingPathComponent("Fuzz")
        var inputs: [[UInt8]] = []
        for folder in ["seeds/validator", "corpus/validator"] {
            let url = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
                inputs.append(Array(try Data(contentsOf: url.appendingPathComponent(name))))
            }
        }
        #expect(inputs.count >= 100)
        // When both paths judge each
        var fast = 0
        for (index, input) in inputs.enumerated() where agree(input, "fuzz input \(index)") { fast += 1 }
        // Then they agree, and the fast path takes part (some corpus lines are plain valid events)
        #expect(fast >= 3, "the fast path accepted \(fast) corpus lines")
    }

    @Test func theFastPathSeedsAreWhatTheirNamesSay() throws {
        // Given the seeds written for the fast path's edges
        let folder = Golden.packageRoot(from: #filePath).appendingPathComponent("Fuzz/seeds/validator")
        func seed(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: folder.appendingPathComponent(name))) }
        // When validated
        // Then a plain line with whitespace, Unicode text, lowercase ids, nulls and an exponent takes the fast path,
        let edges = try seed("valid-fastpath-edges")
        #expect(fastRecord(edges) != nil)
        #expect(fastRecord(edges).map { outcome(edges) == .valid($0) } == true)
        // an escaped string is valid through the full path only,
        let escaped = try seed("valid-escaped-source")
        #expect(fastRecord(escaped) == nil)
        guard case .valid(let record) = outcome(escaped) else {
            Issue.record("valid-escaped-source is refused")
            return
        }
        #expect(record.properties.source == "onboarding")
        // and a key repeated at the end is refused with the full path's reason
        let duplicate = try seed("invalid-dupkey-late")
        #expect(fastRecord(duplicate) == nil)
        #expect(
            outcome(duplicate)
                == .invalid([
                    ValidationIssue(
                        field: "via", rule: "duplicate_key",
                        message: "the key appears more than once; keep one")
                ]))
    }

    @Test func aCatalogWithAPropertyTheFastPathDoesNotBuildGetsNoFastPath() throws {
        // Given the bundled catalog plus one property the record builder does not know
        var catalog = Catalog.bundled
        catalog.properties.append(PropertySpec(name: "coupon", type: "string", description: "A coupon code."))
        catalog.events[0].properties.append(PropertyUse(name: "coupon", required: false))
        // When a validator is made for it
        let validator = EventValidator(catalog: catalog)
        // Then it has no fast path, so no property can be dropped silently, and still validates
        #expect(validator.fast == nil)
        let line = Array(Self.generatedLines(1, seed: 1)[0].utf8)
        #expect(
            line.withUnsafeBytes { validator.validate(line: $0) }
                == line.withUnsafeBytes { self.validator.validate(line: $0) })
    }
}

extension EventContext {
    /// `platform`'s text, for key paths of the same type as the string fields.
    fileprivate var platformText: String? { platform?.rawValue }
}
