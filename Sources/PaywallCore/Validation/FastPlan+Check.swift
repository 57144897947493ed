import Foundation

extension FastPlan {
    /// A field's value checked like ``EventValidator/check(_:_:into:)`` does, without the reasons.
    enum Checked {
        case absent
        case value(CatalogValue)
        /// The full validator would report an issue (or the fast path does not know): give up.
        case refused
    }

    /// Checks the scanned line against the catalog: the event, its allowed keys, every field,
    /// every rule; builds the record when nothing is wrong.
    func check(_ line: UnsafeRawBufferPointer, _ raw: UnsafeMutableBufferPointer<RawValue>, present: UInt64) -> EventRecord? {
        let nameValue = raw[nameSlot]
        guard nameValue.kind == RawValue.string else { return nil }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[nameValue.start..<nameValue.end])
        guard let event = events.first(where: { $0.nameBytes.elementsEqual(nameBytes) }),
              present & ~event.allowed == 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CatalogValue?.self, capacity: slotCount) { values -> EventRecord? in
            values.initialize(repeating: nil)
            defer { values.deinitialize() }
            for field in envelope {
                switch checked(field, raw[field.slot], line) {
                case .refused: return nil
                case .absent: break
                case .value(let value): values[field.slot] = value
                }
            }
            for field in event.fields {
                switch checked(field, raw[field.slot], line) {
                case .refused: return nil
                case .absent: break
                case .value(let value): values[field.slot] = value
                }
            }
            for rule in event.rules where broken(rule, values) { return nil }
            return record(event.name, values)
        }
    }

    func checked(_ field: Field, _ raw: RawValue, _ line: UnsafeRawBufferPointer) -> Checked {
        let compiled = field.field, spec = compiled.spec
        guard raw.kind == RawValue.string || raw.kind == RawValue.number else {
            return compiled.required ? .refused : .absent
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[raw.start..<raw.end])
        switch compiled.kind {
        case .uuid:
            guard raw.kind == RawValue.string, let uuid = UUIDParser.parse(bytes) else { return .refused }
            return .value(.uuid(uuid))
        case .enum:
            guard raw.kind == RawValue.string,
                  let choice = field.choices.first(where: { $0.bytes.elementsEqual(bytes) }) else { return .refused }
            return .value(.string(choice.text))
        case .string, .eventName:
            guard raw.kind == RawValue.string else { return .refused }
            let text = raw.ascii ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
            guard let text else { return .refused }
            let length = raw.ascii ? bytes.count : text.count
            if let low = spec.minLength, length < low { return .refused }
            if let high = spec.maxLength, length > high { return .refused }
            return .value(.string(text))
        case .integer, .timestampMs:
            guard raw.kind == RawValue.number, let number = Self.integer(bytes) else { return .refused }
            if compiled.kind == .timestampMs {
                guard number >= EventValidator.earliestTimestamp, number < EventValidator.timestampLimit else { return .refused }
                return .value(.integer(number))
            }
            if let low = spec.min, Double(number) < low { return .refused }
            if let high = spec.max, Double(number) > high { return .refused }
            return .value(.integer(number))
        case .number:
            guard raw.kind == RawValue.number else { return .refused }
            let number = Self.double(bytes)
            guard number.isFinite else { return .refused }
            if let low = spec.min, number < low { return .refused }
            if let high = spec.max, number > high { return .refused }
            return .value(.number(number))
        case .none:
            return .refused
        }
    }

    /// Whether `rule` is broken, as ``EventValidator/ruleIssues(_:_:)`` judges it.
    func broken(_ rule: Rule, _ values: UnsafeMutableBufferPointer<CatalogValue?>) -> Bool {
        guard rule.whenSlot >= 0, let condition = values[rule.whenSlot]?.stringValue else { return false }
        let triggered = rule.whenValues.contains(condition)
        switch rule.kind {
        case .exactlyWhen:
            guard rule.slot >= 0, let actual = values[rule.slot]?.stringValue else { return false }
            return rule.values.contains(actual) != triggered
        case .requiredWhen:
            return triggered && (rule.slot < 0 || values[rule.slot] == nil)
        }
    }

    /// The record, as ``EventValidator/build(name:values:)`` and the generated
    /// `EventProperties(catalogValues:)` make it from the same values.
    func record(_ name: EventName, _ values: UnsafeMutableBufferPointer<CatalogValue?>) -> EventRecord? {
        let slots = recordSlots
        func value(_ slot: Int) -> CatalogValue? { slot >= 0 ? values[slot] : nil }
        guard let id = value(slots.id)?.uuidValue, let occurredAt = value(slots.occurredAt)?.integerValue,
              let userID = value(slots.userID)?.stringValue,
              let pwID = value(slots.pwID)?.uuidValue, let source = value(slots.source)?.stringValue else { return nil }
        let properties = EventProperties(
            pwID: pwID, source: source,
            offeringID: value(slots.offeringID)?.stringValue, placementID: value(slots.placementID)?.stringValue,
            product: value(slots.product)?.stringValue,
            result: value(slots.result)?.stringValue.flatMap(CloseResult.init(rawValue:)),
            via: value(slots.via)?.stringValue.flatMap(CloseVia.init(rawValue:)),
            openS: value(slots.openS)?.numberValue)
        return EventRecord(
            id: id, name: name, occurredAt: occurredAt, recordedAt: value(slots.recordedAt)?.integerValue,
            userID: userID, sessionID: value(slots.sessionID)?.uuidValue,
            catalogVersion: Int(value(slots.catalogVersion)?.integerValue ?? Int64(CatalogInfo.version)),
            properties: properties)
    }
}
