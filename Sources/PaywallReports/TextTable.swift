import PaywallCore
import PaywallSQLite

/// The reports' one interner: repeated texts by a small dense integer, keyed by their exact scalars
/// (canonically equivalent products are two products). A refresh keeps the close's texts (result,
/// via, product), the offering and the first event's context (platform, app version) here; a scan
/// keeps its products and contexts.
///
/// Speed (design note): every fold looks up a presentation's platform and app version, and every
/// day's rescan each presentation's, next to the close texts and the offering, so a lookup must
/// not cost a `String` or a SipHash. The texts' bytes are found in a ``ByteKeyTable`` (a hash of
/// the row's own bytes, eight at a time, one probe, `memcmp`), for texts read from a row and for Strings alike; a
/// `String` is made only when a text is new. The former lookup compared a row's bytes with the
/// first 16 texts one by one through a generic `elementsEqual` and made a `String` and a dictionary
/// lookup for any later text (the context texts come after the close texts, so most of them): at
/// 1M events it took 117 ms of the first nightly's CPU against 33 ms before the context was kept.
struct TextTable: Equatable {
    static let null: Int32 = -1
    /// Every text's index, by its UTF-8 bytes.
    private var keys = ByteKeyTable()
    /// Every text, by its index.
    private(set) var texts: [String] = []

    /// The index of column `column`'s text (``null`` for SQL `NULL`).
    mutating func index(_ row: Row, _ column: Int) -> Int32 {
        if row.isNull(at: column) { return Self.null }
        return row.withUnsafeText(at: column) { bytes in
            if let found = keys.key(bytes) { return Int32(found) }
            return add(String(decoding: bytes, as: UTF8.self), bytes)
        }
    }

    /// The index of column `column`'s text, `""`'s for SQL `NULL` (a context field an event left out).
    mutating func index(orEmpty row: Row, _ column: Int) -> Int32 {
        row.isNull(at: column) ? index("") : index(row, column)
    }

    /// The index of `text`, adding it when it is new.
    mutating func index(_ text: String) -> Int32 {
        var utf8 = text  // a native, contiguous copy to read the bytes from (usually the same storage)
        return utf8.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            if let found = keys.key(bytes) { return Int32(found) }
            return add(text, bytes)
        }
    }

    /// Adds `text` (whose UTF-8 is `bytes`, not yet in the table) and returns its index.
    private mutating func add(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        keys.insert(bytes, key: Int64(texts.count))
        texts.append(text)
        return Int32(texts.count - 1)
    }

    subscript(index: Int32) -> String? { index == Self.null ? nil : texts[Int(index)] }

    /// Every text's UTF-8 bytes by index, in the table's one arena: valid only inside the
    /// ``withUTF8Texts(_:)`` call that hands them out.
    struct UTF8Texts {
        fileprivate let names: ByteKeyTable.Names

        /// The bytes of text `index` (`nil` for ``TextTable/null``).
        subscript(index: Int32) -> UnsafeRawBufferPointer? { index == TextTable.null ? nil : names[Int(index)] }
    }

    /// Calls `body` with every text's bytes (for binding them without a copy: the rollup merge).
    func withUTF8Texts<R>(_ body: (UTF8Texts) throws -> R) rethrows -> R {
        try keys.withArena { try body(UTF8Texts(names: $0)) }
    }

    /// `transform` of every text, by index (for a lookup per fold instead of a string comparison).
    func map<T>(_ transform: (String) -> T) -> [T] { texts.map(transform) }

    /// Equal when both hold the same texts (the same scalars) at the same indexes.
    static func == (a: Self, b: Self) -> Bool {
        a.texts.count == b.texts.count && zip(a.texts, b.texts).allSatisfy { ExactText.same($0, $1) }
    }
}
