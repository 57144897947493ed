/// A collector write key (`pwk_…`, made by `paywall-analytics keys add NAME` on the collector). Its
/// description, debug description and mirror never show the value, so it cannot reach a log,
/// an error message or an output by accident.
public struct CollectorKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The key, sent only as `Authorization: Bearer …` to the configured endpoint.
    public let value: String

    /// The environment variable the CLI and the facade read the key from.
    public static let environmentVariable = "PAYWALL_COLLECTOR_KEY"
    /// The prefix of every write key.
    public static let prefix = "pwk_"

    /// Checks and wraps `value`.
    /// - Throws: ``CollectorKeyError`` for an empty value, a missing `pwk_` prefix or a character
    ///   other than a letter, digit or `_` (a key with a newline would break the header).
    public init(_ value: String, source: String = "the configuration") throws(CollectorKeyError) {
        let trimmed = value.trimmingPrefixAndSuffixSpaces()
        guard !trimmed.isEmpty else { throw .missing(source: source) }
        guard trimmed.hasPrefix(Self.prefix), trimmed.utf8.count > Self.prefix.utf8.count + 8, trimmed.utf8.count <= 256
        else {
            throw .malformed(source: source)
        }
        guard
            trimmed.utf8.allSatisfy({
                $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else {
            throw .malformed(source: source)
        }
        self.value = trimmed
    }

    /// The configured key, else `PAYWALL_COLLECTOR_KEY` from `environment`.
    /// - Throws: ``CollectorKeyError``: `.missing` when neither holds a key.
    public static func resolve(configured: String?, environment: [String: String]) throws(CollectorKeyError)
        -> CollectorKey
    {
        if let configured, !configured.isEmpty { return try CollectorKey(configured, source: "the configuration") }
        guard let value = environment[environmentVariable], !value.isEmpty else {
            throw .missing(source: environmentVariable)
        }
        return try CollectorKey(value, source: environmentVariable)
    }

    /// `pwk_… (redacted)`: never the key.
    public var description: String { "\(Self.prefix)… (redacted)" }
    /// Same as ``description``.
    public var debugDescription: String { "CollectorKey(\(description))" }
    /// A mirror without the value, so `dump` prints no key.
    public var customMirror: Mirror { Mirror(self, children: ["value": "(redacted)"]) }
}

/// Why no usable collector write key was found. The messages never hold the key.
public enum CollectorKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No key in the configuration or the environment.
    case missing(source: String)
    /// The value is not a write key (`pwk_` followed by letters and digits).
    case malformed(source: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .missing(let source):
            "no collector write key in \(source); ask the collector's operator for one (made with `keys add NAME` there) "
                + "and set it in \(CollectorKey.environmentVariable) or the configuration. Nothing was uploaded and nothing was lost."
        case .malformed(let source):
            "the collector write key in \(source) is not a write key (pwk_ followed by letters and digits); copy the whole "
                + "line that `keys add` printed, without spaces or quotes. Nothing was uploaded and nothing was lost."
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (a pasted key often carries them).
    func trimmingPrefixAndSuffixSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
