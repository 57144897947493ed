import Foundation

extension FastPlan {
    /// Checks the scanned line against the catalog: the event, its allowed keys, every field,
    /// every rule; builds the record when nothing is wrong.
    func check(_ line: UnsafeRawBufferPointer, _ raw: UnsafeMutableBufferPointer<RawValue>, present: UInt64)
        -> EventRecord?
    {
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
        if !versionAllows(event, raw) { return nil }
        return record(event.name, raw, line)
    }

    /// Whether every enum value and envelope field of the line exists in its `catalog_version`, as
    /// ``EventValidator/versionIssues(_:_:)`` judges it.
    func versionAllows(_ event: Event, _ raw: UnsafeMutableBufferPointer<RawValue>) -> Bool {
        let slot = recordSlots.catalogVersion
        guard slot >= 0, raw[slot].typed == RawValue.integer else { return true }
        let version = raw[slot].integer
        for field in envelope where Int64(field.since) > version && raw[field.slot].typed != RawValue.unchecked {
            return false
        }
        for field in event.fields where field.kind == .enum && raw[field.slot].typed == RawValue.choice {
            if Int64(choices[raw[field.slot].choice].since) > version { return false }
        }
        return true
    }

    /// Checks a field's value like ``EventValidator/check(_:_:into:)`` does, without the reasons:
    /// `false` where the full validator would report an issue (or the fast path does not know).
    /// A valid value is stored typed in `raw`; an absent one leaves `raw` as it is.
    func check(_ field: Field, _ raw: inout RawValue, _ line: UnsafeRawBufferPointer) -> Bool {
        guard raw.kind == RawValue.string || raw.kind == RawValue.number else { return !field.required }
        let bytes = UnsafeRawBufferPointer(rebasing: line[raw.start..<raw.end])
        switch field.kind {
        case .uuid:
            guard raw.kind == RawValue.string, let uuid = UUIDText.parseRaw(bytes) else { return false }
            raw.typed = RawValue.uuid
            raw.uuid = uuid
        case .enum:
            guard raw.kind == RawValue.string else { return false }
            let found = choiceBytes.withUnsafeBytes { all in
                field.choices.first { index in
                    let choice = choices[index]
                    return Self.equal(
                        UnsafeRawBufferPointer(rebasing: all[choice.offset..<(choice.offset + choice.count)]), bytes)
                }
            }
            guard let found else { return false }
            raw.typed = RawValue.choice
            raw.choice = found
        case .string, .eventName:
            guard raw.kind == RawValue.string else { return false }
            // Counted as ``TextLength`` counts (Unicode scalars and UTF-8 bytes), on the bytes.
            if !raw.ascii, UTF8Text.string(validating: bytes) == nil { return false }
            let length = raw.ascii ? TextLength(scalars: bytes.count, bytes: bytes.count) : TextLength(utf8: bytes)
            if let low = field.minLength, length.scalars < low { return false }
            if let high = field.maxLength, length.scalars > high { return false }
            if let cap = field.maxBytes, length.bytes > cap { return false }
            // Raw control characters below 0x20 cannot occur in a JSON string; DEL and the C1
            // controls (C2 80…C2 9F) can: leave those to the full validator, which names them.
            if field.refusesControls, bytes.contains(where: { $0 == 0x7F || $0 == 0xC2 }),
                EventValidator.firstControlCharacter(in: String(decoding: bytes, as: UTF8.self)) != nil
            {
                return false
            }
            raw.typed = RawValue.text
        case .integer, .timestampMs:
            guard raw.kind == RawValue.number, let number = Self.integer(bytes) else { return false }
            if field.kind == .timestampMs {
                guard number >= EventValidator.earliestTimestamp, number < EventValidator.timestampLimit else {
                    return false
                }
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
        let triggered = rule.whenValues.contains { ExactText.same($0, condition) }
        switch rule.kind {
        case .exactlyWhen:
            guard let actual = text(rule.slot, raw, line) else { return false }
            return rule.values.contains { ExactText.same($0, actual) } != triggered
        case .requiredWhen:
            return triggered && (rule.slot < 0 || raw[rule.slot].typed == RawValue.unchecked)
        }
    }

    /// A checked value's text (``CatalogValue/stringValue``): an enum value or a string; `nil` otherwise.
    func text(_ slot: Int, _ raw: UnsafeMutableBufferPointer<RawValue>, _ line: UnsafeRawBufferPointer) -> String? {
        SlotReader(choices: choices, slots: [], raw: raw, line: line).text(slot)
    }

    /// The record, as ``EventValidator/build(name:values:)`` and the generated
    /// `EventProperties(catalogValues:)` make it from the same values (the properties through the
    /// generated `EventProperties(reading:)`, so every catalog property is read).
    func record(_ name: EventName, _ raw: UnsafeMutableBufferPointer<RawValue>, _ line: UnsafeRawBufferPointer)
        -> EventRecord?
    {
        let slots = recordSlots
        let reader = SlotReader(choices: choices, slots: slots.properties, raw: raw, line: line)
        guard let id = reader.uuid(slots.id), let occurredAt = reader.integer(slots.occurredAt),
            let userID = reader.text(slots.userID), let properties = EventProperties(reading: reader)
        else { return nil }
        return EventRecord(
            id: id, name: name, occurredAt: occurredAt, recordedAt: reader.integer(slots.recordedAt),
            userID: userID, sessionID: reader.uuid(slots.sessionID),
            catalogVersion: Int(reader.integer(slots.catalogVersion) ?? Int64(CatalogInfo.version)),
            properties: properties,
            context: EventContext(
                appVersion: reader.text(slots.context[0]), build: reader.text(slots.context[1]),
                platform: reader.text(slots.context[2]).flatMap(DevicePlatform.init(rawValue:)),
                osVersion: reader.text(slots.context[3]), sdkVersion: reader.text(slots.context[4]),
                locale: reader.text(slots.context[5])))
    }

    /// A line's checked slots, read by slot or by catalog property (``CatalogValueReader``).
    struct SlotReader: CatalogValueReader {
        /// The plan's ``FastPlan/choices`` (an enum value's text).
        let choices: [Choice]
        /// The slot of each ``PropertyName``, by its position.
        let slots: [Int]
        let raw: UnsafeMutableBufferPointer<RawValue>
        let line: UnsafeRawBufferPointer

        /// A checked value's text: an enum value or a string; `nil` otherwise.
        func text(_ slot: Int) -> String? {
            guard slot >= 0 else { return nil }
            let value = raw[slot]
            switch value.typed {
            case RawValue.choice: return choices[value.choice].text
            case RawValue.text:
                return String(decoding: UnsafeRawBufferPointer(rebasing: line[value.start..<value.end]), as: UTF8.self)
            default: return nil
            }
        }
        func uuid(_ slot: Int) -> UUID? {
            slot >= 0 && raw[slot].typed == RawValue.uuid ? UUID(uuid: raw[slot].uuid) : nil
        }
        func integer(_ slot: Int) -> Int64? {
            slot >= 0 && raw[slot].typed == RawValue.integer ? raw[slot].integer : nil
        }
        func number(_ slot: Int) -> Double? {
            guard slot >= 0 else { return nil }
            switch raw[slot].typed {
            case RawValue.double: return raw[slot].double
            case RawValue.integer: return Double(raw[slot].integer)
            default: return nil
            }
        }

        func string(_ property: PropertyName) -> String? { text(slots[property.position]) }
        func uuid(_ property: PropertyName) -> UUID? { uuid(slots[property.position]) }
        func integer(_ property: PropertyName) -> Int64? { integer(slots[property.position]) }
        func number(_ property: PropertyName) -> Double? { number(slots[property.position]) }
        func choice<Value: RawRepresentable<String>>(_ property: PropertyName, _ type: Value.Type) -> Value? {
            text(slots[property.position]).flatMap(Value.init(rawValue:))
        }
    }
}
