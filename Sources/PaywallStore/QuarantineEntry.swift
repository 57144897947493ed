import PaywallCore

/// A rejected input kept for inspection: why, the raw payload, where it came from and when.
///
/// A quarantined input is identified by its exact bytes: ``identity`` is the SHA-256 of the whole
/// input (an NDJSON line without its `\n` or `\r\n`, however long), so two lines that differ in
/// one byte anywhere are two entries, and an exact repeat is "already quarantined".
public struct QuarantineEntry: Sendable, Hashable {
    /// At most this many reasons are kept per input; one more says how many were left out.
    public static let maxReasons = 20

    /// When it was quarantined, Unix milliseconds.
    public var quarantinedAt: Int64
    /// One human-readable reason per problem found (joined with `"; "` in the table): a reason found
    /// several times is kept once with its count, and at most ``maxReasons`` are kept, plus one
    /// saying how many more there were.
    public var reasons: [String]
    /// The input as text, possibly truncated: exactly the input when it is valid UTF-8; otherwise
    /// every byte that is not valid UTF-8 is shown as `\xHH` (upper-case hex), and ``rawPayload``
    /// keeps the bytes.
    public var payload: String
    /// The payload's exact bytes when they are not valid UTF-8 (`nil` when ``payload`` is them).
    public var rawPayload: [UInt8]?
    /// SHA-256 of the whole input's bytes: the entry's identity.
    public var identity: [UInt8]
    /// Whether ``payload`` is the whole input, exactly (valid UTF-8, not truncated).
    public var payloadIsExact: Bool
    /// The file or database it came from, when known.
    public var origin: String?
    /// The 1-based line (or row) number in ``origin``, when known.
    public var line: Int?

    /// Creates an entry for a text input (a row rendered as JSON, for example): its identity is the
    /// SHA-256 of the text's UTF-8 bytes.
    public init(quarantinedAt: Int64, reasons: [String], payload: String, origin: String? = nil, line: Int? = nil) {
        self.quarantinedAt = quarantinedAt
        self.reasons = Self.capped(reasons)
        self.payload = payload
        self.rawPayload = nil
        self.identity = SHA256.digest(payload.utf8)
        self.payloadIsExact = true
        self.origin = origin
        self.line = line
    }

    /// Creates an entry for raw input bytes (an NDJSON line without its terminator), kept whole.
    public init(
        quarantinedAt: Int64, reasons: [String], bytes: UnsafeRawBufferPointer, origin: String? = nil,
        line: Int? = nil
    ) {
        var hash = SHA256()
        hash.update(bytes)
        self.init(
            quarantinedAt: quarantinedAt, reasons: reasons, kept: Array(bytes), identity: hash.finalize(),
            whole: true, origin: origin, line: line)
    }

    /// Creates an entry that keeps only `kept` (the first bytes of a longer input) and is
    /// identified by `identity`, the SHA-256 of the whole input.
    public init(
        quarantinedAt: Int64, reasons: [String], kept: [UInt8], identity: [UInt8], whole: Bool,
        origin: String? = nil, line: Int? = nil
    ) {
        let shown = QuarantinePayload.display(kept)
        self.quarantinedAt = quarantinedAt
        self.reasons = Self.capped(reasons)
        self.payload = shown.text
        self.rawPayload = shown.valid ? nil : kept
        self.identity = identity
        self.payloadIsExact = whole && shown.valid
        self.origin = origin
        self.line = line
    }

    /// The reasons with repeats folded into one (`… (N times)`, in order of first appearance), then
    /// the first ``maxReasons`` of them and one more saying how many were left out.
    static func capped(_ reasons: [String]) -> [String] {
        // Keyed by UTF-8 bytes: reasons quote data, and `String` equality would fold canonically
        // equivalent spellings (two different keys) into one.
        var order: [String] = []
        var counts: [[UInt8]: Int] = [:]
        for reason in reasons {
            let key = Array(reason.utf8)
            if counts[key] == nil { order.append(reason) }
            counts[key, default: 0] += 1
        }
        let folded = order.map { reason in
            let count = counts[Array(reason.utf8), default: 1]
            return count > 1 ? "\(reason) (\(count) times)" : reason
        }
        guard folded.count > maxReasons else { return folded }
        let more = folded.count - maxReasons
        return Array(folded.prefix(maxReasons))
            + [
                "… and \(more) more problem\(more == 1 ? "" : "s") in this input (only the first \(maxReasons) are kept)"
            ]
    }
}
