import Foundation

/// A RevenueCat public SDK API key. Its description, debug description and mirror are
/// redacted, it is not `Codable`, and the forwarder never puts it anywhere but the
/// `Authorization` header.
///
/// ```swift
/// let resolved = try APIKey.resolve(configured: config.apiKey, environment: ProcessInfo.processInfo.environment)
/// if let warning = resolved.warning { print("Warning: \(warning)") }
/// ```
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret; internal so it cannot be printed from outside the module by accident.
    let value: String

    /// The environment variable the key is read from when configuration has none.
    public static let environmentVariable = "REVENUECAT_API_KEY"
    /// Prefixes of RevenueCat public SDK keys (App Store, Play, Amazon, Web Billing, Test Store).
    public static let knownPrefixes = ["appl_", "goog_", "amzn_", "rcb_", "test_"]

    /// Wraps `value` after checking it is neither empty nor an unfilled template value.
    /// - Throws: ``APIKeyError/missing(source:placeholder:)`` with `source` ``APIKeySource/configuration``.
    public init(_ value: String) throws {
        guard let key = try Self.check(value, source: .configuration) else {
            throw APIKeyError.missing(source: .configuration, placeholder: false)
        }
        self = key
    }

    private init(checked value: String) { self.value = value }

    /// Resolves the key: `configured` if given (even when it is empty, which counts as
    /// missing), else `REVENUECAT_API_KEY` from `environment`.
    /// - Throws: ``APIKeyError`` when there is no usable key; nothing should be sent then.
    public static func resolve(configured: String?, environment: [String: String]) throws -> APIKeyResolution {
        let source: APIKeySource = configured == nil ? .environment : .configuration
        guard let raw = configured ?? environment[environmentVariable],
            let key = try check(raw, source: source)
        else {
            throw APIKeyError.missing(source: source, placeholder: false)
        }
        let warning =
            knownPrefixes.contains { key.value.hasPrefix($0) } ? nil : APIKeyWarning.unknownShape(source: source)
        return APIKeyResolution(key: key, warning: warning)
    }

    /// The fewest characters a key must have after its known prefix (the whole key when it has
    /// none). RevenueCat's public SDK keys have more than 20; a shorter value is a typo or a
    /// fragment, and the redaction of echoed keys works on pieces of 7 bytes, so a key must be
    /// clearly longer than one piece.
    public static let minimumLengthAfterPrefix = 10

    /// `nil` for an empty (or all-whitespace) value; throws for a placeholder, a character that
    /// cannot travel in an HTTP header as it is, or a key that is too short.
    private static func check(_ raw: String, source: APIKeySource) throws -> APIKey? {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        if isPlaceholder(trimmed) { throw APIKeyError.missing(source: source, placeholder: true) }
        if let position = raw.unicodeScalars.firstIndex(where: { !(0x21...0x7E).contains($0.value) }) {
            let offset = raw.unicodeScalars.distance(from: raw.unicodeScalars.startIndex, to: position)
            throw APIKeyError.malformed(source: source, position: offset + 1)
        }
        let prefix = knownPrefixes.first { raw.hasPrefix($0) } ?? ""
        if raw.utf8.count - prefix.utf8.count < minimumLengthAfterPrefix {
            throw APIKeyError.tooShort(source: source, minimum: minimumLengthAfterPrefix)
        }
        return APIKey(checked: raw)
    }

    /// Whether `value` is an unfilled template value such as `YOUR_REVENUECAT_API_KEY_HERE`,
    /// `test_YOUR_TEST_KEY_HERE` or `appl_YOUR_…`.
    public static func isPlaceholder(_ value: String) -> Bool {
        var rest = Substring(value.uppercased())
        if let prefix = knownPrefixes.first(where: { rest.hasPrefix($0.uppercased()) }) {
            rest = rest.dropFirst(prefix.count)
        }
        let markers = ["YOUR_", "YOUR-", "<YOUR", "{YOUR", "REPLACE_ME", "REPLACE-ME", "INSERT_"]
        return markers.contains { rest.hasPrefix($0) } || rest.hasSuffix("_HERE") || rest == "…" || rest == "..."
    }

    /// Whether this is a RevenueCat Test Store key (`test_…`), whose requests are sandbox ones.
    public var isTestStoreKey: Bool { value.hasPrefix("test_") }

    /// A masked form showing only the kind of key: `appl_…(redacted)`.
    public var description: String {
        let prefix = Self.knownPrefixes.first { value.hasPrefix($0) } ?? ""
        return "\(prefix)…(redacted)"
    }

    /// Same as ``description``.
    public var debugDescription: String { "APIKey(\(description))" }

    /// A mirror without the secret, so `dump` and reflection print nothing sensitive.
    public var customMirror: Mirror { Mirror(self, children: ["value": "(redacted)"]) }
}

/// A resolved key and an optional warning about its shape.
public struct APIKeyResolution: Sendable {
    /// The key.
    public var key: APIKey
    /// Set when the key does not start with a known prefix; worth printing, not a refusal.
    public var warning: APIKeyWarning?
}

/// Where the key was looked for.
public enum APIKeySource: String, Sendable, Equatable {
    /// The embedding app's or CLI's configuration.
    case configuration
    /// The `REVENUECAT_API_KEY` environment variable.
    case environment

    /// `REVENUECAT_API_KEY` or `the configuration`, for messages.
    var place: String { self == .environment ? "REVENUECAT_API_KEY" : "the configuration" }
}

/// No usable API key. Its description says where the key is read from.
public enum APIKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is absent, empty, or an unfilled placeholder (`placeholder == true`).
    case missing(source: APIKeySource, placeholder: Bool)
    /// The key holds a character outside visible ASCII (a space, tab, line break, control or
    /// non-ASCII character) at 1-based character `position`. Sent as it is, such a header is
    /// dropped or cut by HTTP clients, and the request would go out unauthenticated.
    case malformed(source: APIKeySource, position: Int)
    /// The key has fewer than `minimum` characters after its `appl_`/`goog_`/… prefix.
    case tooShort(source: APIKeySource, minimum: Int)

    /// What is wrong and how to fix it; never contains the key.
    public var description: String {
        switch self {
        case .malformed(let source, let position):
            return "the RevenueCat API key in \(source.place) has a space, tab, line break, control or non-ASCII "
                + "character at position \(position); a public SDK key is letters, digits and '_' only. Copy the key "
                + "again from the RevenueCat dashboard (Project settings → API keys). Nothing was sent and no impression was lost."
        case .tooShort(let source, let minimum):
            return "the RevenueCat API key in \(source.place) is too short to be a public SDK key (it needs at least "
                + "\(minimum) characters after its appl_/goog_/amzn_/rcb_/test_ prefix); copy the whole key from the RevenueCat "
                + "dashboard (Project settings → API keys). Nothing was sent and no impression was lost."
        case .missing(let source, let placeholder):
            let problem =
                placeholder
                ? "the RevenueCat API key in \(source == .environment ? "REVENUECAT_API_KEY" : "the configuration") is still a template placeholder"
                : "no RevenueCat API key is configured"
            return "\(problem); set REVENUECAT_API_KEY (or the revenueCatAPIKey configuration value) to your project's "
                + "public SDK key (appl_…, goog_…, amzn_…, rcb_… or test_…). Nothing was sent and no impression was lost."
        }
    }
}

/// A non-fatal remark about the key.
public enum APIKeyWarning: Sendable, Equatable, CustomStringConvertible {
    /// The key does not start with a known public SDK key prefix.
    case unknownShape(source: APIKeySource)

    /// The warning text; never contains the key.
    public var description: String {
        switch self {
        case .unknownShape(let source):
            "the RevenueCat API key from \(source == .environment ? "REVENUECAT_API_KEY" : "the configuration") does not start "
                + "with appl_, goog_, amzn_, rcb_ or test_; RevenueCat may refuse it (HTTP 401), which dead-letters impressions"
        }
    }
}
