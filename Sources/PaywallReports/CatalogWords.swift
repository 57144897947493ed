import PaywallCore

/// The UTF-8 bytes of a generated catalog enum's values, for recognising a stored text without
/// making a `String` per row. Built from the generated types (`allCases`), so the reports spell
/// no catalog value themselves.
struct CatalogWords<Value: RawRepresentable & CaseIterable & Sendable>: Sendable where Value.RawValue == String {
    /// Every value with its bytes, in catalog order.
    let words: [(value: Value, bytes: [UInt8])]

    init() {
        words = Value.allCases.map { ($0, Array($0.rawValue.utf8)) }
    }

    /// The value whose bytes are exactly `bytes`, `nil` when none is.
    func value(of bytes: UnsafeRawBufferPointer) -> Value? {
        for word in words where word.bytes.count == bytes.count && bytes.elementsEqual(word.bytes) { return word.value }
        return nil
    }

    /// The value whose text is exactly `text` (by scalars' bytes, not canonical equivalence).
    func value(of text: String?) -> Value? {
        guard let text else { return nil }
        for word in words where text.utf8.elementsEqual(word.bytes) { return word.value }
        return nil
    }
}
