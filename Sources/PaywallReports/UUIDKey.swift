import PaywallSQLite

/// A UUID as two big-endian 64-bit halves: the rollup's 16-byte `BLOB` key. Canonical uppercase UUID
/// text sorts like these bytes (hex digits and dashes in fixed places), so ties broken by id compare
/// the same on the blob as on the text.
struct UUIDKey: Hashable, Comparable {
    var high: UInt64
    var low: UInt64

    static let zero = UUIDKey(high: 0, low: 0)

    static func < (a: UUIDKey, b: UUIDKey) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }

    /// Parses canonical UUID text (`8-4-4-4-12` uppercase hex digits); `nil` for anything else
    /// (lowercase would not sort like its bytes; the store writes uppercase only).
    init?(text bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 36, let base = bytes.baseAddress,
              base.load(fromByteOffset: 8, as: UInt8.self) == UInt8(ascii: "-"),
              base.load(fromByteOffset: 13, as: UInt8.self) == UInt8(ascii: "-"),
              base.load(fromByteOffset: 18, as: UInt8.self) == UInt8(ascii: "-"),
              base.load(fromByteOffset: 23, as: UInt8.self) == UInt8(ascii: "-")
        else { return nil }
        func eight(_ offset: Int) -> UInt64 { UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func four(_ offset: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        guard let a = Self.hex8(eight(0)), let b = Self.hex8(four(9) | four(14) << 32),
              let c = Self.hex8(four(19) | four(24) << 32), let d = Self.hex8(eight(28))
        else { return nil }
        high = a << 32 | b
        low = c << 32 | d
    }

    /// Eight ASCII hex digits (the first in the lowest byte) as a 32-bit value, eight at a time; `nil`
    /// unless every byte is `0-9` or `A-F`.
    @inline(__always)
    static func hex8(_ chars: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // '0'-'9' are 0x30-0x39 and 'A'-'F' 0x41-0x46: the low nibble, plus 9 when bit 6 is set.
        let nibbles = ((chars & (0x0F * ones)) &+ ((chars >> 6) & ones) &* 9) & (0x0F * ones)
        // Valid exactly when the nibbles spell the same bytes back in uppercase.
        let letters = ((nibbles &+ 0x06 * ones) & (0x10 * ones)) >> 4
        guard nibbles &+ 0x30 * ones &+ letters &* 7 == chars else { return nil }
        var value = nibbles.byteSwapped                              // first digit in the highest byte
        value = (value | value >> 4) & 0x00FF_00FF_00FF_00FF        // two digits per 16 bits
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF        // four per 32
        return (value | value >> 16) & 0xFFFF_FFFF
    }

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads a 16-byte blob column; `nil` for anything else.
    init?(blob row: Row, _ column: Int) {
        guard let key = row.withUnsafeBlob(at: column, { bytes -> UUIDKey? in
            guard bytes.count == 16 else { return nil }
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
            return UUIDKey(high: high, low: low)
        }) else { return nil }
        self = key
    }

    /// Binds the 16 big-endian bytes as a blob.
    func bind(_ statement: Statement, at index: Int) {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { statement.bindBlob($0, at: index) }
    }
}
