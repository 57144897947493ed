import Foundation

/// Typed catalog values found by property: what the generated `EventProperties(reading:)` reads.
/// The validator's fast path reads a line's slots through it, so every property the catalog
/// defines reaches its records without a hand-kept list of names.
protocol CatalogValueReader {
    /// The text of `property`, when it is set to text.
    func string(_ property: PropertyName) -> String?
    /// The UUID of `property`, when it is set to one.
    func uuid(_ property: PropertyName) -> UUID?
    /// The whole number (or millisecond timestamp) of `property`, when it is set to one.
    func integer(_ property: PropertyName) -> Int64?
    /// The number of `property` (whole numbers convert), when it is set to one.
    func number(_ property: PropertyName) -> Double?
    /// The value of a closed set (a generated enum, or `EventName`) of `property`, when it is set to one.
    func choice<Value: RawRepresentable<String>>(_ property: PropertyName, _ type: Value.Type) -> Value?
}
