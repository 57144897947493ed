/// A value in a flat JSON object (the NDJSON import format): a scalar, or a marker that the
/// value was nested.
public enum FlatJSONValue: Sendable, Hashable {
    /// A string, unescaped.
    case string(String)
    /// A number, as its JSON text (so that integers keep every digit and overflow is visible).
    case number(String)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An object or array (skipped; flat objects only). The payload is `"object"` or `"array"`.
    case nested(String)

    /// The JSON type name, for messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        case .nested(let kind): kind
        }
    }
}

/// Why a line is not a JSON object: where and what.
public struct FlatJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset of the problem in the line.
    public var offset: Int
    /// What is wrong.
    public var message: String

    /// `malformed JSON at byte N: message`.
    public var description: String { "malformed JSON at byte \(offset): \(message)" }
}

/// Parses one JSON object whose values are scalars (nested values are skipped and marked).
/// Strict RFC 8259: no comments, no trailing commas, no NaN/Infinity, valid UTF-8, no raw
/// control characters in strings. Nesting is bounded so hostile input cannot exhaust the stack.
public enum FlatJSON {
    /// The deepest nesting skipped inside a value before the line is refused.
    public static let maxDepth = 64

    /// The object's members in input order (duplicates kept, for the caller to report).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(FlatJSONError) -> [(
        key: String, value: FlatJSONValue
    )] {
        var scanner = FlatJSONScanner(bytes: bytes)
        return try scanner.object()
    }

    /// Parses a `String` (tests and small inputs).
    public static func parse(_ text: String) throws(FlatJSONError) -> [(key: String, value: FlatJSONValue)] {
        let result: Result<[(key: String, value: FlatJSONValue)], FlatJSONError> = Array(text.utf8).withUnsafeBytes {
            raw in
            Result { () throws(FlatJSONError) in try parse(raw) }
        }
        return try result.get()
    }
}
