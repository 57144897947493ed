/// A rejected input kept for inspection: why, the raw payload, where it came from and when.
public struct QuarantineEntry: Sendable, Hashable {
    /// When it was quarantined, Unix milliseconds.
    public var quarantinedAt: Int64
    /// One human-readable reason per problem found (joined with `"; "` in the table).
    public var reasons: [String]
    /// The raw input (a line of NDJSON, or a row rendered as JSON), possibly truncated.
    public var payload: String
    /// The file or database it came from, when known.
    public var origin: String?
    /// The 1-based line (or row) number in ``origin``, when known.
    public var line: Int?

    /// Creates an entry.
    public init(quarantinedAt: Int64, reasons: [String], payload: String, origin: String? = nil, line: Int? = nil) {
        self.quarantinedAt = quarantinedAt
        self.reasons = reasons
        self.payload = payload
        self.origin = origin
        self.line = line
    }
}
