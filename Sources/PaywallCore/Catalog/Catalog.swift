import Foundation

/// The event catalog: the single source of truth for event names, properties, types, allowed
/// values and rules. Loaded from `catalog/catalog.json`; the generated Swift API, the Markdown
/// reference and the validation of untyped input all come from it.
///
/// ```swift
/// let catalog = try Catalog.load(from: Data(contentsOf: URL(fileURLWithPath: "catalog/catalog.json")))
/// let bundled = Catalog.bundled   // the catalog the code was generated from
/// ```
public struct Catalog: Sendable, Hashable, Codable {
    /// The catalog version (the envelope's `catalog_version`).
    public var catalogVersion: Int
    /// What the catalog is about.
    public var description: String
    /// The envelope fields every event carries.
    public var envelope: [PropertySpec]
    /// The definitions of every event property, shared by the events that use them.
    public var properties: [PropertySpec]
    /// The events.
    public var events: [EventSpec]

    enum CodingKeys: String, CodingKey {
        case catalogVersion = "catalog_version"
        case description, envelope, properties, events
    }

    /// Decodes and checks a catalog.
    ///
    /// - Throws: ``CatalogError/invalid(_:)`` naming every problem found, or
    ///   ``CatalogError/unreadable(_:)`` when the bytes are not a catalog-shaped JSON document.
    public static func load(from data: Data) throws(CatalogError) -> Catalog {
        let catalog: Catalog
        do {
            catalog = try JSONDecoder().decode(Catalog.self, from: data)
        } catch {
            throw .unreadable(CatalogError.describe(decodingError: error))
        }
        let problems = CatalogChecker.problems(in: catalog)
        if !problems.isEmpty { throw .invalid(problems) }
        return catalog
    }

    /// The catalog the checked-in Swift code was generated from (embedded in the binary).
    public static let bundled: Catalog = {
        do {
            return try load(from: Data(CatalogInfo.json.utf8))
        } catch {
            preconditionFailure("The embedded catalog is invalid; run `paywall-analytics catalog generate`: \(error)")
        }
    }()

    /// The event named `name`, if the catalog has it.
    public func event(named name: String) -> EventSpec? { events.first { $0.name == name } }

    /// The shared definition of the property named `name`, if the catalog has it.
    public func property(named name: String) -> PropertySpec? { properties.first { $0.name == name } }
}

/// The value types a catalog property can have.
public enum PropertyType: String, Sendable, Hashable, Codable, CaseIterable {
    /// UTF-8 text, with optional length bounds (Unicode scalars, and a cap in UTF-8 bytes).
    case string
    /// A UUID in canonical 8-4-4-4-12 hexadecimal form.
    case uuid
    /// Unix time in whole milliseconds.
    case timestampMs = "timestamp_ms"
    /// A whole number, with optional bounds.
    case integer
    /// A finite decimal number, with optional bounds.
    case number
    /// One of a closed set of strings (`values`).
    case `enum`
    /// The name of one of the catalog's events.
    case eventName = "event_name"
}

/// A property definition: its type and the limits on its values.
public struct PropertySpec: Sendable, Hashable, Codable {
    /// The wire name (snake_case).
    public var name: String
    /// The type, as written in the catalog (checked against ``PropertyType``).
    public var type: String
    /// For envelope fields: whether the field is required.
    public var required: Bool?
    /// What the property means.
    public var description: String
    /// Minimum length of a string, in Unicode scalars (see ``TextLength``).
    public var minLength: Int?
    /// Maximum length of a string, in Unicode scalars (see ``TextLength``).
    public var maxLength: Int?
    /// Maximum size of a string, in UTF-8 bytes (see ``TextLength``).
    public var maxBytes: Int?
    /// Lower bound of a number or integer (inclusive).
    public var min: Double?
    /// Upper bound of a number or integer (inclusive).
    public var max: Double?
    /// The allowed values of an enum.
    public var values: [String]?
    /// The Swift type name generated for an enum.
    public var swiftType: String?
    /// For an enum: the catalog version that introduced a value, for the values added after
    /// version 1 (a value not listed has been allowed since version 1). An event whose
    /// `catalog_version` is lower than a value's version is refused with that value.
    public var valuesSince: [String: Int]?
    /// For an optional envelope field added after version 1: the catalog version that introduced
    /// it. An event whose `catalog_version` is lower and that carries the field is refused, as a
    /// value of a later version is (``valuesSince``).
    public var since: Int?

    enum CodingKeys: String, CodingKey {
        case name, type, required, description, min, max, values, since
        case valuesSince = "values_since"
        case minLength = "min_length"
        case maxLength = "max_length"
        case maxBytes = "max_bytes"
        case swiftType = "swift_type"
    }

    /// The parsed type, or `nil` when the catalog names an unknown type.
    public var kind: PropertyType? { PropertyType(rawValue: type) }

    /// The catalog version that introduced the enum value `value` (1 unless ``valuesSince`` says later).
    public func version(introducing value: String) -> Int { valuesSince?[value] ?? 1 }

    /// The catalog version that introduced the field itself (1 unless ``since`` says later).
    public var introducedIn: Int { since ?? 1 }
}

/// An event definition.
public struct EventSpec: Sendable, Hashable, Codable {
    /// The event's name (snake_case).
    public var name: String
    /// The event's own version.
    public var version: Int
    /// What the event means.
    public var description: String
    /// The properties the event carries, in order.
    public var properties: [PropertyUse]
    /// Cross-property rules.
    public var rules: [RuleSpec]
}

/// A property as one event uses it.
public struct PropertyUse: Sendable, Hashable, Codable {
    /// The name of a property defined in ``Catalog/properties``.
    public var name: String
    /// Whether the event must carry it.
    public var required: Bool
}

/// A rule that relates two properties of one event.
public struct RuleSpec: Sendable, Hashable, Codable {
    /// `exactly_when`: ``property`` is in ``values`` exactly when ``whenProperty`` is in
    /// ``whenValues``. `required_when`: ``property`` must be present when ``whenProperty`` is
    /// in ``whenValues``.
    public var kind: String
    /// The property the rule constrains.
    public var property: String
    /// For `exactly_when`: the values of ``property`` the rule is about.
    public var values: [String]?
    /// The property the condition reads.
    public var whenProperty: String
    /// The values of ``whenProperty`` that trigger the rule.
    public var whenValues: [String]
    /// The rule in words, used in validation messages and docs.
    public var description: String

    enum CodingKeys: String, CodingKey {
        case kind, property, values, description
        case whenProperty = "when_property"
        case whenValues = "when_values"
    }

    /// The parsed kind, or `nil` when unknown.
    public var ruleKind: RuleKind? { RuleKind(rawValue: kind) }
}

/// The kinds of cross-property rule.
public enum RuleKind: String, Sendable, Hashable, CaseIterable {
    /// One property takes given values exactly when another does.
    case exactlyWhen = "exactly_when"
    /// One property is required when another takes given values.
    case requiredWhen = "required_when"
}
