import PaywallCore
import PaywallSQLite

/// The reports' one interner: repeated texts by a small dense integer, keyed by their exact scalars
/// (canonically equivalent products are two products). A refresh keeps the close's texts (result,
/// via, product) and the offering here; a scan keeps its products.
struct TextTable: Equatable {
    static let null: Int32 = -1
    private var indexes: [ExactText: Int32] = [:]
    /// Every text, by its index.
    private(set) var texts: [String] = []
    /// The first texts' bytes, by index: a row's text is found among them without a `String` or a
    /// hash (every impression looks its offering up here); a miss falls back to ``indexes``.
    private var recent: [[UInt8]] = []

    /// The index of column `column`'s text (``null`` for SQL `NULL`).
    mutating func index(_ row: Row, _ column: Int) -> Int32 {
        if row.isNull(at: column) { return Self.null }
        let found = row.withUnsafeText(at: column) { bytes -> Int32? in
            for (index, known) in recent.enumerated() where known.count == bytes.count && bytes.elementsEqual(known) {
                return Int32(index)
            }
            return nil
        }
        if let found { return found }
        // Close texts are short: Strings of up to 15 UTF-8 bytes are stored inline (no allocation).
        let text = row.withUnsafeText(at: column) { String(decoding: $0, as: UTF8.self) }
        if let index = indexes[ExactText(text)] { return index }
        texts.append(text)
        if recent.count == texts.count - 1, recent.count < 16 { recent.append(Array(text.utf8)) }
        indexes[ExactText(text)] = Int32(texts.count - 1)
        return Int32(texts.count - 1)
    }

    /// The index of column `column`'s text, `""`'s for SQL `NULL` (a context field an event left out).
    mutating func index(orEmpty row: Row, _ column: Int) -> Int32 {
        row.isNull(at: column) ? index("") : index(row, column)
    }

    /// The index of `text`, adding it when it is new.
    mutating func index(_ text: String) -> Int32 {
        if let index = indexes[ExactText(text)] { return index }
        texts.append(text)
        if recent.count == texts.count - 1, recent.count < 16 { recent.append(Array(text.utf8)) }
        indexes[ExactText(text)] = Int32(texts.count - 1)
        return Int32(texts.count - 1)
    }

    subscript(index: Int32) -> String? { index == Self.null ? nil : texts[Int(index)] }

    /// `transform` of every text, by index (for a lookup per fold instead of a string comparison).
    func map<T>(_ transform: (String) -> T) -> [T] { texts.map(transform) }
}
