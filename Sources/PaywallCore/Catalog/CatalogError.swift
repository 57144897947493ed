import Foundation

/// A problem found in a catalog file, with where it is.
public struct CatalogProblem: Sendable, Hashable, CustomStringConvertible {
    /// Where in the catalog, e.g. `events[paywall_closed].rules[0]`.
    public var location: String
    /// What is wrong and what to do.
    public var message: String

    /// Creates a problem.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
}

/// Why a catalog could not be loaded.
public enum CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is not JSON of the catalog's shape; the string says where and why.
    case unreadable(String)
    /// The catalog parsed but breaks rules; every problem is listed.
    case invalid([CatalogProblem])

    /// A message naming every problem.
    public var description: String {
        switch self {
        case .unreadable(let reason):
            return "the catalog is not readable: \(reason). Fix the JSON (see catalog/README.md for the format)."
        case .invalid(let problems):
            let lines = problems.map { "  - \($0)" }.joined(separator: "\n")
            return "the catalog has \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n\(lines)"
        }
    }

    static func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "top level" : String(text.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at \(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "malformed JSON at \(path(context)): \(underlying ?? context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
