import Foundation
import PaywallCore
import Testing

/// Builds NDJSON lines for tests: a valid `paywall_closed` by default, with fields replaced or removed.
enum Line {
    static let base: [(String, String)] = [
        ("id", #""01936B2A-7C00-7000-8000-000000000001""#),
        ("name", #""paywall_closed""#),
        ("occurred_at", "1764400000000"),
        ("user_id", #""user_42""#),
        ("session_id", #""01936b2a-7000-7000-8000-00000000000a""#),
        ("catalog_version", "1"),
        ("pw_id", #""01936B2A-7000-7000-8000-0000000000FF""#),
        ("source", #""onboarding""#),
        ("result", #""purchased""#),
        ("via", #""auto""#),
        ("open_s", "12.5"),
        ("product", #""pro_annual""#),
    ]

    static func make(_ changes: [String: String?] = [:], extra: [(String, String)] = []) -> String {
        var fields = base.compactMap { key, value -> (String, String)? in
            guard let change = changes[key] else { return (key, value) }
            return change.map { (key, $0) }
        }
        fields += extra
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

struct EventValidatorTests {
    let validator = EventValidator()

    func issues(_ line: String) -> [ValidationIssue] {
        if case .invalid(let issues) = validator.validate(line: line) { return issues }
        return []
    }

    @Test func aValidLineBecomesATypedEnvelopedEvent() throws {
        // Given a complete paywall_closed line with a lowercase session id
        // When it is validated
        guard case .valid(let event) = validator.validate(line: Line.make()) else {
            Issue.record("expected valid, got \(issues(Line.make()))")
            return
        }
        // Then every field is typed and UUIDs are canonical
        #expect(event.name == .paywallClosed)
        #expect(event.id.uuidString == "01936B2A-7C00-7000-8000-000000000001")
        #expect(event.sessionID?.uuidString == "01936B2A-7000-7000-8000-00000000000A")
        #expect(event.occurredAt == 1_764_400_000_000)
        #expect(event.properties.result == .purchased)
        #expect(event.properties.via == .auto)
        #expect(event.properties.openS == 12.5)
        #expect(event.properties.product == "pro_annual")
        #expect(event.properties.source == "onboarding")
    }

    @Test(
        arguments: [
            // (changes, field, rule)
            (["id": nil], "id", "required"),
            (["id": "null"], "id", "required"),
            (["id": #""not-a-uuid""#], "id", "uuid"),
            (["id": #""01936B2A7C0070008000000000000001""#], "id", "uuid"),
            (["id": "42"], "id", "type"),
            (["name": #""paywall_opened""#], "name", "unknown_event"),
            (["name": nil], "name", "required"),
            (["occurred_at": #""1764400000000""#], "occurred_at", "type"),
            (["occurred_at": "1764400000000.5"], "occurred_at", "integer"),
            (["occurred_at": "1764400000"], "occurred_at", "timestamp"),
            (["occurred_at": "-1"], "occurred_at", "timestamp"),
            (["occurred_at": "99999999999999999999999"], "occurred_at", "integer"),
            (["occurred_at": "4102444800000"], "occurred_at", "timestamp"),
            (["user_id": #""""#], "user_id", "min_length"),
            (["user_id": "\"" + String(repeating: "u", count: 257) + "\""], "user_id", "max_length"),
            (["session_id": #""abc""#], "session_id", "uuid"),
            (["catalog_version": "3"], "catalog_version", "max"),
            (["catalog_version": "0"], "catalog_version", "min"),
            (["catalog_version": nil], "catalog_version", "required"),
            (["pw_id": nil], "pw_id", "required"),
            (["source": #""""#], "source", "min_length"),
            (["source": "\"" + String(repeating: "é", count: 65) + "\""], "source", "max_length"),
            (["source": "{\"a\":1}"], "source", "nested"),
            (["source": "[1,2]"], "source", "nested"),
            (["source": "true"], "source", "type"),
            (["result": #""refunded""#], "result", "enum"),
            (["via": #""swipe""#], "via", "enum"),
            (["open_s": #""12.5""#], "open_s", "type"),
            (["open_s": "1e999"], "open_s", "finite"),
            (["open_s": "-0.5"], "open_s", "min"),
            (["open_s": "86400.001"], "open_s", "max"),
            (["open_s": nil], "open_s", "required"),
            (["via": #""close_button""#], "via", "exactly_when"),
            (["result": #""dismissed""#], "via", "exactly_when"),
            (["product": nil], "product", "required_when"),
            (["product": #""""#], "product", "min_length"),
        ] as [([String: String?], String, String)])
    func eachRuleNamesTheFieldAndRule(changes: [String: String?], field: String, rule: String) {
        let found = issues(Line.make(changes))
        #expect(found.contains { $0.field == field && $0.rule == rule }, "got \(found)")
    }

    @Test(arguments: [
        ("app_version", "3.2.0"), ("build", "412"), ("platform", "android"), ("os_version", "14"),
        ("sdk_version", "0.1.0"), ("locale", "zh-Hant-TW"),
    ])
    func aContextFieldIsRefusedInAVersionOneEventAndStoredFromAVersionTwoEvent(_ field: String, _ value: String) {
        // Given an event carrying a context field of catalog version 2
        let extra = [(field, "\"\(value)\"")]
        // When it says catalog_version 1, Then it is refused naming the field and the version to write
        let refused = issues(Line.make(["catalog_version": "1"], extra: extra))
        #expect(refused.count == 1, "got \(refused)")
        #expect(refused.first?.field == field && refused.first?.rule == "catalog_version")
        #expect(refused.first?.message.contains("catalog_version 2 or later") == true)
        // And as a version-2 event it is valid and carries the value
        guard case .valid(let event) = validator.validate(line: Line.make(["catalog_version": "2"], extra: extra))
        else {
            Issue.record("expected valid, got \(issues(Line.make(["catalog_version": "2"], extra: extra)))")
            return
        }
        let context = event.context
        let read = [
            "app_version": context.appVersion, "build": context.build, "platform": context.platform?.rawValue,
            "os_version": context.osVersion, "sdk_version": context.sdkVersion, "locale": context.locale,
        ]
        #expect(read[field] == value)
        #expect(read.values.compactMap { $0 } == [value])
        // And the record's own NDJSON line reads back as the same event (the encoder writes the field)
        #expect(event.ndjsonLine.contains("\"\(field)\":\"\(value)\""))
        #expect(validator.validate(line: event.ndjsonLine) == .valid(event))
        #expect(validator.validate(event).isEmpty)
        // And null counts as absent even in a version-1 event
        #expect(issues(Line.make(["catalog_version": "1"], extra: [(field, "null")])).isEmpty)
    }

    @Test(arguments: [
        ("app_version", String(repeating: "1", count: 65), "max_length"), ("app_version", "", "min_length"),
        ("build", String(repeating: "b", count: 65), "max_length"), ("platform", "linux", "enum"),
        ("platform", "iOS", "enum"), ("os_version", String(repeating: "1", count: 33), "max_length"),
        ("locale", String(repeating: "a", count: 36), "max_length"), ("sdk_version", "", "min_length"),
    ])
    func aContextValueOutsideItsLimitsIsRefused(_ field: String, _ value: String, _ rule: String) {
        let found = issues(Line.make(["catalog_version": "2"], extra: [(field, JSONString.quoted(value))]))
        #expect(found.contains { $0.field == field && $0.rule == rule }, "got \(found)")
    }

    @Test(arguments: ["gesture", "abandoned"])
    func aViaOfVersionTwoIsRefusedInAVersionOneEventAndAcceptedInAVersionTwoEvent(_ via: String) {
        // Given a dismissal by a via that catalog version 2 introduced
        let dismissal: [String: String?] = ["result": #""dismissed""#, "via": "\"\(via)\"", "product": nil]
        var old = dismissal
        old["catalog_version"] = "1"
        var new = dismissal
        new["catalog_version"] = "2"
        // When it is validated as a version-1 event, Then it is refused (on both paths) naming the version
        let refused = issues(Line.make(old))
        #expect(refused.count == 1, "got \(refused)")
        #expect(refused.first?.field == "via" && refused.first?.rule == "catalog_version")
        #expect(refused.first?.message.contains("catalog version 2") == true)
        #expect(refused.first?.message.contains("catalog_version 2 or later") == true)
        // And as a version-2 event it is valid, with the via typed
        guard case .valid(let event) = validator.validate(line: Line.make(new)) else {
            Issue.record("expected valid, got \(issues(Line.make(new)))")
            return
        }
        #expect(event.properties.via?.rawValue == via)
        #expect(event.catalogVersion == 2)
    }

    @Test(arguments: ["1", "2"])
    func theValuesOfVersionOneStayValidInEveryVersion(_ version: String) {
        for (result, via) in [("purchased", "auto"), ("dismissed", "close_button"), ("dismissed", "continue_free")] {
            let line = Line.make(["catalog_version": version, "result": "\"\(result)\"", "via": "\"\(via)\""])
            #expect(issues(line).isEmpty, "\(line): \(issues(line))")
            guard case .valid = validator.validate(line: line) else {
                Issue.record("expected valid: \(line)")
                continue
            }
        }
    }

    @Test func everyReasonIsListedNotJustTheFirst() {
        let found = issues(Line.make(["id": #""x""#, "open_s": "-1", "via": #""swipe""#]))
        #expect(Set(found.map(\.field)) == ["id", "open_s", "via"])
    }

    @Test func theOffendingValueIsReported() {
        let found = issues(Line.make(["result": #""refunded""#]))
        #expect(found.first?.value == "refunded")
        #expect(found.first?.description.contains("purchased, restored, dismissed") == true)
    }

    @Test func unknownPropertiesAreRefusedNamingThem() {
        let typo = issues(Line.make(extra: [("prodcut", #""x""#)]))
        #expect(typo.contains { $0.field == "prodcut" && $0.rule == "unknown_property" })
        let otherEvent = issues(
            Line.make(["name": #""paywall_shown""#, "result": nil, "via": nil, "open_s": nil, "product": nil]))
        #expect(otherEvent.isEmpty, "paywall_shown without close properties is valid: \(otherEvent)")
        let misplaced = issues(Line.make(["name": #""paywall_shown""#]))
        #expect(misplaced.contains { $0.field == "result" && $0.message.contains("not a property of paywall_shown") })
    }

    @Test func anOptionalNullIsAbsentAndDismissedNeedsNoProduct() {
        let line = Line.make([
            "result": #""dismissed""#, "via": #""close_button""#, "product": "null", "session_id": "null",
        ])
        guard case .valid(let event) = validator.validate(line: line) else {
            Issue.record("expected valid: \(issues(line))")
            return
        }
        #expect(event.properties.product == nil)
        #expect(event.sessionID == nil)
    }

    @Test func duplicateKeysAreRefused() {
        let found = issues(Line.make(extra: [("source", #""settings""#)]))
        #expect(found.contains { $0.field == "source" && $0.rule == "duplicate_key" })
    }

    @Test(arguments: [
        "", "   ", "[]", "{", "{\"a\":}", "{\"a\":1,}", "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":01}",
        "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{'a':1}", "{\"a\":1} trailing", "{\"a\":1.}",
        "{\"a\":-}", "{\"a\":tru}", "{\"a\":[[[", String(repeating: "[", count: 100),
    ])
    func malformedJSONIsOneClearIssue(line: String) {
        let found = issues(line)
        #expect(found.count == 1)
        #expect(found.first?.rule == "json")
        #expect(found.first?.message.hasPrefix("malformed JSON at byte") == true)
    }

    @Test func deepNestingIsRefusedWithoutRecursion() {
        let deep = "{\"a\":" + String(repeating: "[", count: 100_000) + "}"
        #expect(issues(deep).first?.rule == "json")
    }

    @Test func invalidUTF8IsRefused() {
        var bytes = Array(Line.make().utf8)
        let index = bytes.firstIndex(of: UInt8(ascii: "o"))!
        bytes[index] = 0xFF
        let outcome = bytes.withUnsafeBytes { validator.validate(line: $0) }
        guard case .invalid(let found) = outcome else {
            Issue.record("expected invalid")
            return
        }
        #expect(found.first?.message.contains("UTF-8") == true)
    }

    @Test func escapesAndUnicodeSourcesRoundTrip() {
        let line = Line.make(["source": #""on\u00e9\"board\ud83d\ude00, =x""#])
        guard case .valid(let event) = validator.validate(line: line) else {
            Issue.record("\(issues(line))")
            return
        }
        #expect(event.properties.source == "oné\"board😀, =x")
    }

    @Test func typedRecordsAreCheckedWithTheSameRules() {
        let event = PaywallClosed(
            pwID: UUID(), source: String(repeating: "s", count: 65), result: .dismissed,
            via: .auto, openS: .infinity
        )
        .record(id: UUIDv7.make(milliseconds: 1_764_400_000_000), occurredAt: 1_764_400_000_000, userID: "u")
        let found = Set(validator.validate(event).map(\.rule))
        #expect(found == ["max_length", "exactly_when", "finite"])
    }
}
