import Foundation

/// A validated property value, typed by the catalog.
public enum CatalogValue: Sendable, Hashable {
    /// Text, an enum value or an event name.
    case string(String)
    /// A UUID.
    case uuid(UUID)
    /// A whole number or a millisecond timestamp.
    case integer(Int64)
    /// A finite number.
    case number(Double)

    /// The text, when the value is text.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The UUID, when the value is a UUID.
    public var uuidValue: UUID? { if case .uuid(let value) = self { value } else { nil } }
    /// The whole number, when the value is one.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The number; whole numbers convert.
    public var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}
