import PaywallCore
import PaywallSQLite

/// A UUID as two big-endian 64-bit halves: the rollup's 16-byte `BLOB` key. Canonical uppercase UUID
/// text sorts like these bytes (hex digits and dashes in fixed places), so ties broken by id compare
/// the same on the blob as on the text.
struct UUIDKey: Hashable, Comparable {
    var high: UInt64
    var low: UInt64

    static let zero = UUIDKey(high: 0, low: 0)

    static func < (a: UUIDKey, b: UUIDKey) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }

    /// Parses canonical UUID text (`8-4-4-4-12` uppercase hex digits, ``UUIDText/uppercaseHalves(_:)``);
    /// `nil` for anything else (lowercase would not sort like its bytes; the store writes uppercase only).
    init?(text bytes: UnsafeRawBufferPointer) {
        guard let halves = UUIDText.uppercaseHalves(bytes) else { return nil }
        (high, low) = halves
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads a 16-byte blob column; `nil` for anything else.
    init?(blob row: Row, _ column: Int) {
        guard
            let key = row.withUnsafeBlob(
                at: column,
                { bytes -> UUIDKey? in
                    guard bytes.count == 16 else { return nil }
                    var high: UInt64 = 0
                    var low: UInt64 = 0
                    for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
                    for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
                    return UUIDKey(high: high, low: low)
                })
        else { return nil }
        self = key
    }

    /// Binds the 16 big-endian bytes as a blob.
    func bind(_ statement: Statement, at index: Int) {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { statement.bindBlob($0, at: index) }
    }

    /// Writes the 16 big-endian bytes at `place` and binds them there without a copy: `place`
    /// must stay unchanged until the statement has run (``Statement/bindBlobNoCopy(_:at:)``).
    func bind(_ statement: Statement, at index: Int, keptAt place: UnsafeMutableRawPointer) {
        place.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
        place.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        statement.bindBlobNoCopy(UnsafeRawBufferPointer(start: place, count: 16), at: index)
    }
}
