import Foundation

/// A value SQLite can store or return: the five storage classes, typed.
///
/// ```swift
/// try db.run("INSERT INTO meta (key, value) VALUES (?, ?)", [.text("lease"), .text("owner")])
/// ```
public enum SQLValue: Sendable, Hashable {
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A double-precision float.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)
    /// SQL `NULL`.
    case null

    /// The integer value, or `nil` when the value is not an integer.
    public var int64: Int64? { if case .integer(let value) = self { return value } else { return nil } }
    /// The text value, or `nil` when the value is not text.
    public var string: String? { if case .text(let value) = self { return value } else { return nil } }
    /// The float value (integers widened), or `nil` for other storage classes.
    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: return nil
        }
    }
}

extension SQLValue {
    /// `.text(value)` or `.null` when `value` is `nil`.
    public static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// `.integer(value)` or `.null` when `value` is `nil`.
    public static func integer(_ value: Int64?) -> SQLValue { value.map(SQLValue.integer) ?? .null }
    /// `.real(value)` or `.null` when `value` is `nil`.
    public static func real(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
}
