/// One reason an event is invalid: the field, the rule it breaks, and the offending value.
public struct ValidationIssue: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The field (envelope field or property), or `(line)` for the line as a whole.
    public var field: String
    /// The rule broken: `json`, `required`, `type`, `nested`, `duplicate_key`, `unknown_event`,
    /// `unknown_property`, `uuid`, `integer`, `finite`, `min`, `max`, `min_length`,
    /// `max_length`, `enum`, `timestamp`, or a cross-property rule kind (`exactly_when`, `required_when`).
    public var rule: String
    /// The offending value as text (shortened to 80 characters), when there is one.
    public var value: String?
    /// What is wrong and what is expected.
    public var message: String

    /// Creates an issue; values over 80 Unicode scalars are shortened to 77 and `...` (counted in
    /// scalars, not characters: one character can hold any number of combining marks).
    public init(field: String, rule: String, value: String? = nil, message: String) {
        self.field = field
        self.rule = rule
        self.value = value.map { text in
            guard text.unicodeScalars.count > 80 else { return text }
            return String(String.UnicodeScalarView(text.unicodeScalars.prefix(77))) + "..."
        }
        self.message = message
    }

    /// `field: message (got value)`.
    public var description: String {
        "\(field): \(message)" + (value.map { " (got \($0.debugDescription))" } ?? "")
    }
}

/// The outcome of validating one untyped event.
public enum ValidationOutcome: Sendable, Hashable {
    /// A valid event, ready to store.
    case valid(EventRecord)
    /// Every reason the event is invalid.
    case invalid([ValidationIssue])
}
