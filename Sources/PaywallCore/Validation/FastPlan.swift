import Foundation

/// The catalog compiled for ``EventValidator``'s allocation-light path: every key the catalog
/// knows gets a slot number, the key and event-name bytes sit in byte tables, enum values keep
/// their bytes next to their text. The fast path only ever *accepts*: a line it cannot prove
/// valid (any issue, an escape, a duplicate, anything unusual) goes to the full validator, which
/// alone writes the reasons. `nil` (no fast path) for a catalog the plan cannot represent.
struct FastPlan: Sendable {
    /// A field to check, with the slot its value is found in: the bounds of its
    /// ``PropertySpec`` copied into plain values, so reading one retains nothing.
    struct Field: Sendable {
        let slot: Int
        let kind: PropertyType?
        let required: Bool
        let minLength: Int?
        let maxLength: Int?
        let maxBytes: Int?
        let min: Double?
        let max: Double?
        /// The catalog version that introduced the field (``PropertySpec/introducedIn``).
        let since: Int
        /// The enum's values: indices into ``FastPlan/choices`` (empty unless the field is an enum).
        let choices: Range<Int>
        /// Whether control characters are refused (``EventValidator/refusesControlCharacters(_:)``).
        let refusesControls: Bool
    }

    /// An enum value: its bytes at `offset..<offset+count` of ``FastPlan/choiceBytes`` and its text
    /// (the generated enum's case of that text is `init(rawValue:)` of it).
    struct Choice: Sendable {
        let offset: Int
        let count: Int
        let text: String
        /// The catalog version that introduced the value (``PropertySpec/version(introducing:)``).
        let since: Int
    }

    /// A cross-property rule with its properties' slots (-1: a name with no slot, never set).
    struct Rule: Sendable {
        let kind: RuleKind
        let slot: Int
        let whenSlot: Int
        let values: [String]
        let whenValues: [String]
    }

    /// An event: its name's bytes, the keys a line of it may carry, its fields and rules.
    struct Event: Sendable {
        let nameBytes: [UInt8]
        let name: EventName
        let allowed: UInt64
        let fields: [Field]
        let rules: [Rule]
    }

    /// Slots of the envelope fields ``EventRecord`` holds (-1 when the catalog lacks the name), and
    /// of every generated ``PropertyName`` by its position (the generated `EventProperties(reading:)`
    /// reads them).
    struct RecordSlots: Sendable {
        var id = -1, occurredAt = -1, recordedAt = -1, userID = -1, sessionID = -1, catalogVersion = -1
        /// The context fields' slots, in ``EventContext/fields`` order.
        var context = [Int](repeating: -1, count: EventContext.fields.count)
        var properties = [Int](repeating: -1, count: PropertyName.allCases.count)
    }

    /// The envelope fields ``EventRecord`` holds (``EnvelopeField``).
    static let envelopeNames = EnvelopeField.allCases.map(\.rawValue)

    /// Every name the record builder reads: the envelope's and the generated ``PropertyName``s. A
    /// catalog with any other name (one the generated types were not made from) gets no fast path,
    /// so the fast path can never drop a property silently.
    static let recordNames = Set(envelopeNames + PropertyName.allCases.map(\.rawValue))

    /// Key bytes back to back, and per key its offset, length, first and last byte, and slot.
    let keyBytes: [UInt8]
    let keys: [(offset: Int, count: Int, first: UInt8, last: UInt8, slot: Int)]
    /// Every enum field's values, back to back (bytes in ``choiceBytes``).
    let choices: [Choice]
    let choiceBytes: [UInt8]
    /// How many distinct keys the catalog knows (at most 64: a line's keys are one bit mask).
    let slotCount: Int
    /// The slot of `name`, which picks the event.
    let nameSlot: Int
    /// The envelope fields checked on every line (the event-name field is checked by lookup).
    let envelope: [Field]
    /// The catalog's events, each once (the first of duplicates, as the full validator resolves them).
    let events: [Event]
    /// Where the record's values are.
    let recordSlots: RecordSlots

    /// Compiles the catalog (with the full validator's resolved fields and events); `nil` when
    /// the catalog has a name the record builder does not read, or more than 64 keys.
    init?(
        catalog: Catalog, envelopeFields: [EventValidator.CompiledField],
        eventsByName: [String: EventValidator.CompiledEvent]
    ) {
        var names: [String] = [EnvelopeField.name.rawValue]
        for name in catalog.envelope.map(\.name) + catalog.properties.map(\.name)
            + catalog.events.flatMap({ $0.properties.map(\.name) }) where !names.contains(name)
        {
            names.append(name)
        }
        guard names.count <= 64, Set(names).isSubset(of: Self.recordNames) else { return nil }
        func slot(_ name: String) -> Int { names.firstIndex(of: name) ?? -1 }
        func mask(_ keys: some Sequence<String>) -> UInt64 {
            keys.reduce(0) { $0 | (1 << UInt64(slot($1))) }
        }
        var choices: [Choice] = []
        var choiceBytes: [UInt8] = []
        func field(_ compiled: EventValidator.CompiledField) -> Field {
            let start = choices.count
            for value in compiled.kind == .enum ? compiled.spec.values ?? [] : [] {
                choices.append(
                    Choice(
                        offset: choiceBytes.count, count: value.utf8.count, text: value,
                        since: compiled.spec.version(introducing: value)))
                choiceBytes += value.utf8
            }
            let spec = compiled.spec
            return Field(
                slot: slot(spec.name), kind: compiled.kind, required: compiled.required,
                minLength: spec.minLength, maxLength: spec.maxLength, maxBytes: spec.maxBytes, min: spec.min,
                max: spec.max, since: spec.introducedIn,
                choices: start..<choices.count, refusesControls: EventValidator.refusesControlCharacters(spec.name))
        }
        slotCount = names.count
        nameSlot = 0
        var bytes: [UInt8] = []
        var keys: [(offset: Int, count: Int, first: UInt8, last: UInt8, slot: Int)] = []
        for (index, name) in names.enumerated() {
            keys.append((bytes.count, name.utf8.count, name.utf8.first ?? 0, name.utf8.last ?? 0, index))
            bytes += name.utf8
        }
        keyBytes = bytes
        self.keys = keys
        envelope = envelopeFields.map(field)
        let envelopeNames = catalog.envelope.map(\.name)
        var events: [Event] = []
        for listed in catalog.events where !events.contains(where: { $0.nameBytes == Array(listed.name.utf8) }) {
            // The event the full validator resolves this name to (the first of duplicates).
            guard let compiled = eventsByName[listed.name], let name = EventName(rawValue: listed.name) else {
                continue
            }
            let spec = compiled.spec
            let rules = spec.rules.compactMap { rule in
                rule.ruleKind.map {
                    Rule(
                        kind: $0, slot: slot(rule.property), whenSlot: slot(rule.whenProperty),
                        values: rule.values ?? [], whenValues: rule.whenValues)
                }
            }
            events.append(
                Event(
                    nameBytes: Array(listed.name.utf8), name: name,
                    allowed: mask(envelopeNames + spec.properties.map(\.name)),
                    fields: compiled.fields.map(field), rules: rules))
        }
        self.events = events
        self.choices = choices
        self.choiceBytes = choiceBytes
        var record = RecordSlots()
        record.id = slot(EnvelopeField.id.rawValue)
        record.occurredAt = slot(EnvelopeField.occurredAt.rawValue)
        record.recordedAt = slot(EnvelopeField.recordedAt.rawValue)
        record.userID = slot(EnvelopeField.userID.rawValue)
        record.sessionID = slot(EnvelopeField.sessionID.rawValue)
        record.catalogVersion = slot(EnvelopeField.catalogVersion.rawValue)
        for (index, field) in EventContext.fields.enumerated() { record.context[index] = slot(field.rawValue) }
        for property in PropertyName.allCases { record.properties[property.position] = slot(property.rawValue) }
        recordSlots = record
    }
}
