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

    /// Creates an issue; long values are shortened.
    public init(field: String, rule: String, value: String? = nil, message: String) {
        self.field = field
        self.rule = rule
        self.value = value.map { $0.count > 80 ? String($0.prefix(77)) + "..." : $0 }
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
