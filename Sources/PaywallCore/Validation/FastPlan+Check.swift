import Foundation

extension FastPlan {
    /// Checks the scanned line against the catalog: the event, its allowed keys, every field,
    /// every rule; builds the record when nothing is wrong.
    func check(_ line: UnsafeRawBufferPointer, _ raw: UnsafeMutableBufferPointer<RawValue>, present: UInt64) -> EventRecord? {
        let nameValue = raw[nameSlot]
        guard nameValue.kind == RawValue.string else { return nil }
        let nameBytes = UnsafeRawBufferPointer(rebasing: line[nameValue.start..<nameValue.end])
        guard let index = events.firstIndex(where: { $0.nameBytes.withUnsafeBytes { Self.equal($0, nameBytes) } })
        else { return nil }
        let event = events[index]
        guard present & ~event.allowed == 0 else { return nil }
        for field in envelope where !check(field, &raw[field.slot], line) { return nil }
        for field in event.fields where !check(field, &raw[field.slot], line) { return nil }
        for rule in event.rules where broken(rule, raw, line) { return nil }
        return record(event.name, raw, line)
    }

    /// Checks a field's value like ``EventValidator/check(_:_:into:)`` does, without the reasons:
    /// `false` where the full validator would report an issue (or the fast path does not know).
    /// A valid value is stored typed in `raw`; an absent one leaves `raw` as it is.
    func check(_ field: Field, _ raw: inout RawValue, _ line: UnsafeRawBufferPointer) -> Bool {
        guard raw.kind == RawValue.string || raw.kind == RawValue.number else { return !field.required }
        let bytes = UnsafeRawBufferPointer(rebasing: line[raw.start..<raw.end])
        switch field.kind {
        case .uuid:
            guard raw.kind == RawValue.string, let uuid = UUIDParser.parseRaw(bytes) else { return false }
            raw.typed = RawValue.uuid
            raw.uuid = uuid
        case .enum:
            guard raw.kind == RawValue.string else { return false }
            let found = choiceBytes.withUnsafeBytes { all in
                field.choices.first { index in
                    let choice = choices[index]
                    return Self.equal(UnsafeRawBufferPointer(rebasing: all[choice.offset..<(choice.offset + choice.count)]), bytes)
                }
            }
            guard let found else { return false }
            raw.typed = RawValue.choice
            raw.choice = found
        case .string, .eventName:
            guard raw.kind == RawValue.string else { return false }
            var length = bytes.count
            if !raw.ascii {
                guard let text = UTF8Text.string(validating: bytes) else { return false }
                length = text.count
            }
            if let low = field.minLength, length < low { return false }
            if let high = field.maxLength, length > high { return false }
            raw.typed = RawValue.text
        case .integer, .timestampMs:
            guard raw.kind == RawValue.number, let number = Self.integer(bytes) else { return false }
            if field.kind == .timestampMs {
                guard number >= EventValidator.earliestTimestamp, number < EventValidator.timestampLimit else { return false }
            } else {
                if let low = field.min, Double(number) < low { return false }
                if let high = field.max, Double(number) > high { return false }
            }
            raw.typed = RawValue.integer
            raw.integer = number
        case .number:
            guard raw.kind == RawValue.number else { return false }
            let number = Self.double(bytes)
            guard number.isFinite else { return false }
            if let low = field.min, number < low { return false }
            if let high = field.max, number > high { return false }
            raw.typed = RawValue.double
            raw.double = number
        case .none:
            return false
        }
        return true
    }

    /// Whether two byte runs are the same bytes.
    @inline(__always)
    static func equal(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
        left.count == right.count && (left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
    }

    /// Whether `rule` is broken, as ``EventValidator/ruleIssues(_:_:)`` judges it.
    func broken(_ rule: Rule, _ raw: UnsafeMutableBufferPointer<RawValue>, _ line: UnsafeRawBufferPointer) -> Bool {
        guard let condition = text(rule.whenSlot, raw, line) else { return false }
        let triggered = rule.whenValues.contains(condition)
        switch rule.kind {
        case .exactlyWhen:
            guard let actual = text(rule.slot, raw, line) else { return false }
            return rule.values.contains(actual) != triggered
        case .requiredWhen:
            return triggered && (rule.slot < 0 || raw[rule.slot].typed == RawValue.unchecked)
        }
    }

    /// A checked value's text (``CatalogValue/stringValue``): an enum value or a string; `nil` otherwise.
    func text(_ slot: Int, _ raw: UnsafeMutableBufferPointer<RawValue>, _ line: UnsafeRawBufferPointer) -> String? {
        guard slot >= 0 else { return nil }
        let value = raw[slot]
        switch value.typed {
        case RawValue.choice: return choices[value.choice].text
        case RawValue.text: return String(decoding: UnsafeRawBufferPointer(rebasing: line[value.start..<value.end]), as: UTF8.self)
        default: return nil
        }
    }

    /// The record, as ``EventValidator/build(name:values:)`` and the generated
    /// `EventProperties(catalogValues:)` make it from the same values.
    func record(_ name: EventName, _ raw: UnsafeMutableBufferPointer<RawValue>, _ line: UnsafeRawBufferPointer) -> EventRecord? {
        let slots = recordSlots
        func uuid(_ slot: Int) -> UUID? { slot >= 0 && raw[slot].typed == RawValue.uuid ? UUID(uuid: raw[slot].uuid) : nil }
        func integer(_ slot: Int) -> Int64? { slot >= 0 && raw[slot].typed == RawValue.integer ? raw[slot].integer : nil }
        func number(_ slot: Int) -> Double? {
            guard slot >= 0 else { return nil }
            switch raw[slot].typed {
            case RawValue.double: return raw[slot].double
            case RawValue.integer: return Double(raw[slot].integer)
            default: return nil
            }
        }
        func text(_ slot: Int) -> String? { self.text(slot, raw, line) }
        func result(_ slot: Int) -> CloseResult? {
            slot >= 0 && raw[slot].typed == RawValue.choice ? choices[raw[slot].choice].result
                : text(slot).flatMap(CloseResult.init(rawValue:))
        }
        func via(_ slot: Int) -> CloseVia? {
            slot >= 0 && raw[slot].typed == RawValue.choice ? choices[raw[slot].choice].via
                : text(slot).flatMap(CloseVia.init(rawValue:))
        }
        guard let id = uuid(slots.id), let occurredAt = integer(slots.occurredAt), let userID = text(slots.userID),
              let pwID = uuid(slots.pwID), let source = text(slots.source) else { return nil }
        let properties = EventProperties(
            pwID: pwID, source: source, offeringID: text(slots.offeringID), placementID: text(slots.placementID),
            product: text(slots.product), result: result(slots.result), via: via(slots.via), openS: number(slots.openS))
        return EventRecord(
            id: id, name: name, occurredAt: occurredAt, recordedAt: integer(slots.recordedAt),
            userID: userID, sessionID: uuid(slots.sessionID),
            catalogVersion: Int(integer(slots.catalogVersion) ?? Int64(CatalogInfo.version)),
            properties: properties)
    }
}
