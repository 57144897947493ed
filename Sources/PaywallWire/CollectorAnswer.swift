/// The collector's answer to a stored `POST /v1/events` (a 200): what became of each line, and why
/// the quarantined ones were refused. The collector sends it (``json``), the uploader reads its
/// counts (``counts(in:)``); `Codable` for anyone else who reads or writes it.
///
/// ```swift
/// let answer = CollectorAnswer(counts: EventCounts(accepted: 2, quarantined: 1),
///                              rejected: [.init(line: 3, reasons: ["missing field \"id\""])])
/// answer.json   // {"accepted":2,"duplicates":0,"quarantined":1,"rejected":[{"line":3,"reasons":["missing field \"id\""]}]}
/// ```
public struct CollectorAnswer: Codable, Sendable, Hashable {
    /// One refused line and its reasons.
    public struct Rejection: Codable, Sendable, Hashable {
        /// The line's 1-based number in the request body (0 when it has none).
        public var line: Int
        /// Why it was refused, one sentence each.
        public var reasons: [String]

        /// Creates a rejection.
        public init(line: Int, reasons: [String]) {
            self.line = line
            self.reasons = reasons
        }
    }

    /// Events stored for the first time.
    public var accepted: Int
    /// Valid events the collector already had.
    public var duplicates: Int
    /// Lines quarantined (refused as invalid, or conflicting with a stored event of the same id).
    public var quarantined: Int
    /// Events and refused lines of forgotten customers, not stored; on the wire only when above 0
    /// (and read as 0 when absent).
    public var suppressed: Int
    /// The refused lines that came with reasons, in body order (the first ones, when there were
    /// more than the collector lists in one answer).
    public var rejected: [Rejection]
    /// Refused lines left out of ``rejected`` to keep the answer small; on the wire
    /// (`rejected_omitted`) only when above 0, and read as 0 when absent.
    public var rejectedOmitted: Int

    /// Creates an answer.
    public init(counts: EventCounts, rejected: [Rejection] = [], rejectedOmitted: Int = 0) {
        accepted = counts.accepted
        duplicates = counts.duplicates
        quarantined = counts.quarantined
        suppressed = counts.suppressed
        self.rejected = rejected
        self.rejectedOmitted = rejectedOmitted
    }

    /// The four counts.
    public var counts: EventCounts {
        EventCounts(accepted: accepted, duplicates: duplicates, quarantined: quarantined, suppressed: suppressed)
    }

    private enum CodingKeys: String, CodingKey {
        case accepted, duplicates, quarantined, suppressed, rejected
        case rejectedOmitted = "rejected_omitted"
    }

    /// Decodes an answer; `suppressed` and `rejected` may be absent (0 and none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accepted = try container.decode(Int.self, forKey: .accepted)
        duplicates = try container.decode(Int.self, forKey: .duplicates)
        quarantined = try container.decode(Int.self, forKey: .quarantined)
        suppressed = try container.decodeIfPresent(Int.self, forKey: .suppressed) ?? 0
        rejected = try container.decodeIfPresent([Rejection].self, forKey: .rejected) ?? []
        rejectedOmitted = try container.decodeIfPresent(Int.self, forKey: .rejectedOmitted) ?? 0
    }

    /// Encodes the answer's keys in the wire's order, `suppressed` only when above 0. An encoder
    /// may still reorder them: the collector sends ``json``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accepted, forKey: .accepted)
        try container.encode(duplicates, forKey: .duplicates)
        try container.encode(quarantined, forKey: .quarantined)
        if suppressed > 0 { try container.encode(suppressed, forKey: .suppressed) }
        try container.encode(rejected, forKey: .rejected)
        if rejectedOmitted > 0 { try container.encode(rejectedOmitted, forKey: .rejectedOmitted) }
    }
}
