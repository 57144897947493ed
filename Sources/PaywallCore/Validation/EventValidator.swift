import Foundation

/// Turns untyped input — a flat JSON object, the NDJSON import format — into a typed,
/// enveloped ``EventRecord``, or into the list of every reason it is invalid.
///
/// Decisions (documented in catalog/README.md): properties the catalog does not define for the
/// event are refused, not dropped; an optional property given as `null` is absent; timestamps are
/// whole Unix milliseconds in [2000-01-01, 2100-01-01); an enum value introduced in a later catalog
/// version than the event's `catalog_version` is refused (a version-1 writer cannot have meant it),
/// and so is an envelope field of a later version (`app_version` and the other context fields in a
/// version-1 event).
///
/// ```swift
/// let validator = EventValidator()
/// switch validator.validate(line: #"{"id":"…","name":"paywall_shown",…}"#) {
/// case .valid(let event): recorder.record(event)
/// case .invalid(let issues): print(issues.map(\.description))
/// }
/// ```
public struct EventValidator: Sendable {
    /// The catalog the events are checked against.
    public let catalog: Catalog
    /// The earliest accepted timestamp: 2000-01-01T00:00:00Z.
    public static let earliestTimestamp: Int64 = 946_684_800_000
    /// The first refused timestamp: 2100-01-01T00:00:00Z.
    public static let timestampLimit: Int64 = 4_102_444_800_000

    /// A field with its type resolved once, so validating a line parses no catalog text.
    struct CompiledField: Sendable {
        let spec: PropertySpec
        let kind: PropertyType?
        let required: Bool
    }

    /// An event with its fields resolved and the set of keys a line of it may carry.
    struct CompiledEvent: Sendable {
        let spec: EventSpec
        let fields: [CompiledField]
        /// Keys by their exact scalars (a key canonically equivalent to a catalog name is not that name).
        let allowedKeys: Set<ExactText>
    }

    let eventsByName: [String: CompiledEvent]
    let propertiesByName: [String: PropertySpec]
    let envelopeFields: [CompiledField]
    /// The allocation-light path for lines it can prove valid (`nil`: every line takes the full path).
    let fast: FastPlan?

    /// Creates a validator for `catalog` (by default the one the code was generated from).
    public init(catalog: Catalog = .bundled) {
        self.catalog = catalog
        let properties = Dictionary(catalog.properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        propertiesByName = properties
        envelopeFields = catalog.envelope.filter { $0.kind != .eventName }
            .map { CompiledField(spec: $0, kind: $0.kind, required: $0.required ?? false) }
        let envelopeNames = Set(catalog.envelope.map(\.name))
        eventsByName = Dictionary(
            catalog.events.map { event in
                let fields = event.properties.compactMap { use in
                    properties[use.name].map { CompiledField(spec: $0, kind: $0.kind, required: use.required) }
                }
                return (
                    event.name,
                    CompiledEvent(
                        spec: event, fields: fields,
                        allowedKeys: Set(envelopeNames.union(event.properties.map(\.name)).map(ExactText.init)))
                )
            }, uniquingKeysWith: { first, _ in first })
        fast = FastPlan(catalog: catalog, envelopeFields: envelopeFields, eventsByName: eventsByName)
    }

    /// Validates one NDJSON line (without its newline).
    ///
    /// A line of the common shape (known keys, no escapes) is checked on a path that allocates
    /// little; any other line, and every line that is not valid, takes the full path, which
    /// alone writes the reasons — so the outcome is the same either way.
    public func validate(line: UnsafeRawBufferPointer) -> ValidationOutcome {
        if let fast, let record = fast.record(line: line) { return .valid(record) }
        return validateFully(line: line)
    }

    /// Validates one NDJSON line on the full path only (the reference the fast path is tested against).
    func validateFully(line: UnsafeRawBufferPointer) -> ValidationOutcome {
        do {
            return validate(members: try FlatJSON.parse(line))
        } catch {
            return .invalid([ValidationIssue(field: "(line)", rule: "json", message: error.description)])
        }
    }

    /// Validates one NDJSON line given as text.
    public func validate(line: String) -> ValidationOutcome {
        Array(line.utf8).withUnsafeBytes { validate(line: $0) }
    }

    /// Validates a typed record (for example one built by hand rather than by the tracker).
    public func validate(_ record: EventRecord) -> [ValidationIssue] {
        var members: [(key: String, value: FlatJSONValue)] = [
            (EnvelopeField.id.rawValue, .string(record.id.uuidString)),
            (EnvelopeField.name.rawValue, .string(record.name.rawValue)),
            (EnvelopeField.occurredAt.rawValue, .number(String(record.occurredAt))),
            (EnvelopeField.userID.rawValue, .string(record.userID)),
            (EnvelopeField.catalogVersion.rawValue, .number(String(record.catalogVersion))),
        ]
        if let sessionID = record.sessionID {
            members.append((EnvelopeField.sessionID.rawValue, .string(sessionID.uuidString)))
        }
        for field in EventContext.fields {
            if let text = record.context.text(field) { members.append((field.rawValue, .string(text))) }
        }
        for (key, value) in record.properties.catalogValues.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): members.append((key, .string(text)))
            case .uuid(let uuid): members.append((key, .string(uuid.uuidString)))
            case .integer(let number): members.append((key, .number(String(number))))
            case .number(let number):
                members.append((key, number.isFinite ? .number(String(number)) : .number("1e999")))
            }
        }
        if case .invalid(let issues) = validate(members: members) { return issues }
        return []
    }

    /// Validates parsed members of a flat object.
    public func validate(members: [(key: String, value: FlatJSONValue)]) -> ValidationOutcome {
        var issues: [ValidationIssue] = []
        // Keyed by exact scalars: `caf\u{E9}` and `cafe\u{301}` are two keys, not a duplicate.
        var fields: [ExactText: FlatJSONValue] = [:]
        fields.reserveCapacity(members.count)
        for (key, value) in members {
            if fields.updateValue(value, forKey: ExactText(key)) != nil {
                issues.append(
                    .init(field: key, rule: "duplicate_key", message: "the key appears more than once; keep one"))
            }
        }
        var values: [String: CatalogValue] = [:]
        values.reserveCapacity(members.count)
        for field in envelopeFields {
            if let value = check(field, fields[ExactText(field.spec.name)], into: &issues) {
                values[field.spec.name] = value
            }
        }
        let event = checkName(fields[ExactText(EnvelopeField.name.rawValue)], into: &issues)
        if let event {
            for field in event.fields {
                if let value = check(field, fields[ExactText(field.spec.name)], into: &issues) {
                    values[field.spec.name] = value
                }
            }
            for (key, _) in members where !event.allowedKeys.contains(ExactText(key)) {
                let known =
                    propertiesByName[key].map { ExactText.same($0.name, key) } == true
                    ? "is not a property of \(event.spec.name)" : "is not in the catalog"
                issues.append(
                    .init(
                        field: key, rule: "unknown_property",
                        message: "\(known); remove it, or add it to the catalog first"))
            }
            issues += ruleIssues(event.spec, values)
            issues += versionIssues(event, values)
        }
        guard issues.isEmpty, let event, let name = EventName(rawValue: event.spec.name) else {
            return .invalid(issues)
        }
        return build(name: name, values: values)
    }

    func checkName(_ value: FlatJSONValue?, into issues: inout [ValidationIssue]) -> CompiledEvent? {
        guard let value, value != .null else {
            issues.append(
                .init(
                    field: EnvelopeField.name.rawValue, rule: "required",
                    message: "required; give the event's catalog name"))
            return nil
        }
        guard case .string(let name) = value else {
            issues.append(
                .init(
                    field: EnvelopeField.name.rawValue, rule: "type", value: value.typeName,
                    message: "expected a string"))
            return nil
        }
        guard let event = eventsByName[name], ExactText.same(event.spec.name, name) else {
            let known = catalog.events.map(\.name).joined(separator: ", ")
            issues.append(
                .init(
                    field: EnvelopeField.name.rawValue, rule: "unknown_event", value: name,
                    message: "not an event of the catalog (\(known))"
                ))
            return nil
        }
        return event
    }

    func build(name: EventName, values: [String: CatalogValue]) -> ValidationOutcome {
        guard let id = values[EnvelopeField.id.rawValue]?.uuidValue,
            let occurredAt = values[EnvelopeField.occurredAt.rawValue]?.integerValue,
            let userID = values[EnvelopeField.userID.rawValue]?.stringValue,
            let properties = EventProperties(catalogValues: values)
        else {
            return .invalid([
                .init(
                    field: "(line)", rule: "catalog",
                    message: "the catalog and the generated code disagree; regenerate the code from the catalog")
            ])
        }
        return .valid(
            EventRecord(
                id: id, name: name, occurredAt: occurredAt,
                recordedAt: values[EnvelopeField.recordedAt.rawValue]?.integerValue,
                userID: userID, sessionID: values[EnvelopeField.sessionID.rawValue]?.uuidValue,
                catalogVersion: Int(
                    values[EnvelopeField.catalogVersion.rawValue]?.integerValue ?? Int64(CatalogInfo.version)),
                properties: properties,
                context: EventContext(
                    appVersion: values[EnvelopeField.appVersion.rawValue]?.stringValue,
                    build: values[EnvelopeField.build.rawValue]?.stringValue,
                    platform: values[EnvelopeField.platform.rawValue]?.stringValue.flatMap(
                        DevicePlatform.init(rawValue:)),
                    osVersion: values[EnvelopeField.osVersion.rawValue]?.stringValue,
                    sdkVersion: values[EnvelopeField.sdkVersion.rawValue]?.stringValue,
                    locale: values[EnvelopeField.locale.rawValue]?.stringValue)))
    }
}
