import Foundation

extension EventValidator {
    /// Checks one field against its definition; returns the typed value or records issues.
    func check(_ field: CompiledField, _ value: FlatJSONValue?, into issues: inout [ValidationIssue]) -> CatalogValue? {
        let spec = field.spec
        let required = field.required
        let name = spec.name
        guard let value, value != .null else {
            if required {
                let how = value == nil ? "missing" : "null"
                issues.append(.init(field: name, rule: "required", message: "required but \(how)"))
            }
            return nil
        }
        func issue(_ rule: String, _ message: String, _ shown: String? = nil) -> CatalogValue? {
            issues.append(.init(field: name, rule: rule, value: shown, message: message))
            return nil
        }
        if case .nested(let kind) = value {
            return issue("nested", "expected a \(expected(spec)), got an \(kind); nested values are not allowed")
        }
        switch field.kind {
        case .string, .enum, .uuid, .eventName:
            guard case .string(let text) = value else {
                return issue("type", "expected a \(expected(spec)), got a \(value.typeName)", shownText(value))
            }
            return checkText(spec, kind: field.kind, text, issue: issue)
        case .integer, .timestampMs:
            guard case .number(let text) = value else {
                return issue("type", "expected a \(expected(spec)), got a \(value.typeName)", shownText(value))
            }
            guard text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") }) else {
                return issue("integer", "expected a whole number", text)
            }
            guard let number = Int64(text) else { return issue("integer", "out of range for a 64-bit integer", text) }
            return checkInteger(spec, kind: field.kind, number, text, issue: issue)
        case .number:
            guard case .number(let text) = value else {
                return issue("type", "expected a number, got a \(value.typeName)", shownText(value))
            }
            guard let number = Double(text), number.isFinite else {
                return issue("finite", "must be a finite number (this one overflows)", text)
            }
            if let low = spec.min, number < low { return issue("min", "must be at least \(format(low))", text) }
            if let high = spec.max, number > high { return issue("max", "must be at most \(format(high))", text) }
            return .number(number)
        case .none:
            return issue("type", "the catalog gives this field an unknown type; check the catalog")
        }
    }

    /// Whether the field named `name` refuses control characters: `user_id`, so every stored
    /// customer id can be named on a command line (`forget --user`, `export --user`), which cannot
    /// hold a NUL character and should not be handed terminal escapes; and the context fields
    /// (``EventContext/fields``: `app_version`, `build`, `platform`, `os_version`, `sdk_version`,
    /// `locale`), which the reports show as segments and take as `--platform` / `--app-version` filters.
    static func refusesControlCharacters(_ name: String) -> Bool {
        name == "user_id" || contextFieldNames.contains(name)
    }

    /// The context fields' names.
    static let contextFieldNames = Set(EventContext.fields.map(\.rawValue))

    /// Why a control character in field `name` is refused, for the quarantine reason.
    static func controlCharacterConsequence(_ name: String) -> String {
        name == "user_id"
            ? "an id no command line can name could never be erased or exported"
            : "a report could not show it as a segment nor a command line name it in a filter"
    }

    /// The first C0 control (U+0000…U+001F), DEL or C1 control (U+0080…U+009F) in `text`.
    static func firstControlCharacter(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    func checkText(
        _ spec: PropertySpec, kind: PropertyType?, _ text: String,
        issue: (String, String, String?) -> CatalogValue?
    ) -> CatalogValue? {
        switch kind {
        case .uuid:
            guard let uuid = UUIDText.parse(text) else {
                return issue("uuid", "expected a UUID like 01936B2A-7C00-7000-8000-000000000001", text)
            }
            return .uuid(uuid)
        case .enum:
            guard spec.values?.contains(where: { ExactText.same($0, text) }) == true else {
                return issue("enum", "must be one of \((spec.values ?? []).joined(separator: ", "))", text)
            }
            return .string(text)
        default:
            if let problem = spec.lengthProblem(TextLength(text)) { return issue(problem.rule, problem.message, text) }
            if Self.refusesControlCharacters(spec.name), let control = Self.firstControlCharacter(in: text) {
                let code = String(control.value, radix: 16, uppercase: true)
                return issue(
                    "control_characters",
                    "must not hold control characters (U+0000 to U+001F, U+007F to U+009F); this one holds U+"
                        + String(repeating: "0", count: max(0, 4 - code.count)) + code
                        + " (\(Self.controlCharacterConsequence(spec.name)))", nil)
            }
            return .string(text)
        }
    }

    func checkInteger(
        _ spec: PropertySpec, kind: PropertyType?, _ number: Int64, _ text: String,
        issue: (String, String, String?) -> CatalogValue?
    ) -> CatalogValue? {
        if kind == .timestampMs {
            guard number >= Self.earliestTimestamp, number < Self.timestampLimit else {
                let hint = number > 0 && number < 10_000_000_000 ? "; this looks like seconds, multiply by 1000" : ""
                return issue("timestamp", "must be Unix milliseconds between 2000-01-01 and 2100-01-01\(hint)", text)
            }
            return .integer(number)
        }
        if let low = spec.min, Double(number) < low { return issue("min", "must be at least \(format(low))", text) }
        if let high = spec.max, Double(number) > high { return issue("max", "must be at most \(format(high))", text) }
        return .integer(number)
    }

    /// Issues for the event's cross-property rules, evaluated on values that passed their own checks.
    func ruleIssues(_ event: EventSpec, _ values: [String: CatalogValue]) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        for rule in event.rules {
            guard let condition = values[rule.whenProperty]?.stringValue else { continue }
            let triggered = rule.whenValues.contains { ExactText.same($0, condition) }
            switch rule.ruleKind {
            case .exactlyWhen:
                guard let actual = values[rule.property]?.stringValue else { continue }
                let matches = (rule.values ?? []).contains { ExactText.same($0, actual) }
                if matches != triggered {
                    issues.append(
                        .init(
                            field: rule.property, rule: "exactly_when", value: actual,
                            message: "\(rule.description) (\(rule.whenProperty) is \(condition))"))
                }
            case .requiredWhen:
                if triggered, values[rule.property] == nil {
                    issues.append(
                        .init(
                            field: rule.property, rule: "required_when",
                            message: "\(rule.description) (\(rule.whenProperty) is \(condition))"))
                }
            case .none:
                continue
            }
        }
        return issues
    }

    /// Issues for enum values and envelope fields newer than the event's `catalog_version` (a value
    /// or an `app_version` of version 2 in a version-1 event), evaluated on values that passed their
    /// own checks.
    func versionIssues(_ event: CompiledEvent, _ values: [String: CatalogValue]) -> [ValidationIssue] {
        guard let version = values["catalog_version"]?.integerValue else { return [] }
        var issues: [ValidationIssue] = []
        for field in envelopeFields where field.spec.introducedIn > version && values[field.spec.name] != nil {
            let since = field.spec.introducedIn
            issues.append(
                .init(
                    field: field.spec.name, rule: "catalog_version",
                    message:
                        "\(field.spec.name) was introduced in catalog version \(since) and this event says "
                        + "catalog_version \(version); write the event with catalog_version \(since) or later, or "
                        + "leave the field out"))
        }
        for field in event.fields where field.spec.valuesSince != nil {
            guard let value = values[field.spec.name]?.stringValue else { continue }
            let since = field.spec.version(introducing: value)
            if since > version {
                issues.append(
                    .init(
                        field: field.spec.name, rule: "catalog_version", value: value,
                        message:
                            "\(value) was introduced in catalog version \(since) and this event says catalog_version "
                            + "\(version); write the event with catalog_version \(since) or later"))
            }
        }
        return issues
    }

    func expected(_ spec: PropertySpec) -> String {
        switch spec.kind {
        case .uuid: "UUID string"
        case .enum: "string (one of \((spec.values ?? []).joined(separator: ", ")))"
        case .timestampMs: "whole number of Unix milliseconds"
        case .integer: "whole number"
        case .number: "number"
        default: "string"
        }
    }

    func shownText(_ value: FlatJSONValue) -> String? {
        switch value {
        case .string(let text), .number(let text): text
        case .bool(let flag): String(flag)
        default: nil
        }
    }

    func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
