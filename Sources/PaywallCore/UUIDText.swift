import Foundation

/// The one UUID text codec: the canonical `8-4-4-4-12` hexadecimal form read straight from UTF-8
/// and written into a stack buffer, without Foundation's `sscanf`-based parser or a `String`.
///
/// One parser (``halves(_:lowercase:)``, eight digits at a time) serves every reader: the validator
/// parses up to three ids per event (either case), the store and its readers parse stored ids, and the
/// reports read the stored uppercase text as two big-endian halves (the rollup's 16-byte key). The
/// store binds ids as their uppercase text (`uuidString` form). Inlinable: the store's and the reports' hot
/// loops call it from other modules.
///
/// ```swift
/// let id = UUIDText.parse("0190A1B2-C3D4-7E5F-8091-A2B3C4D5E6F7")
/// UUIDText.withCanonical(event.id) { statement.bindText($0, at: 1) }
/// ```
public enum UUIDText {
    /// The UUID, or `nil` unless `text` is exactly 36 characters of canonical form (either case).
    @inlinable
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// The UUID, or `nil` unless `bytes` are exactly the 36 bytes of canonical form (either case).
    @inlinable
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> UUID? {
        parseRaw(bytes).map(UUID.init(uuid:))
    }

    /// The 16 bytes of the UUID, or `nil` unless `bytes` are exactly the 36 bytes of canonical form
    /// (either case). The same parser as ``uppercaseHalves(_:)``, accepting lowercase too.
    @inlinable
    public static func parseRaw(_ bytes: UnsafeRawBufferPointer) -> uuid_t? {
        guard let halves = halves(bytes, lowercase: true) else { return nil }
        return unsafeBitCast((halves.high.bigEndian, halves.low.bigEndian), to: uuid_t.self)
    }

    /// Calls `body` with the 36 bytes of `uuid`'s uppercase canonical text (the `uuidString` form
    /// the store keeps), from a stack buffer.
    @inlinable
    public static func withCanonical<R>(_ uuid: UUID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = uuid.uuid
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            let text = UnsafeMutableRawPointer(out.baseAddress!)
            pairs.withUnsafeBufferPointer { table in
                withUnsafeBytes(of: &raw) { source in
                    var position = 0
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                            position += 1
                        }
                        text.storeBytes(
                            of: table[Int(source[index])].littleEndian, toByteOffset: position, as: UInt16.self)
                        position += 2
                    }
                }
            }
            return try body(UnsafeRawBufferPointer(out))
        }
    }

    /// The two uppercase hex digits of every byte value, first digit in the low byte.
    @usableFromInline
    static let pairs: [UInt16] = (0..<256).map { value in
        let digits = Array("0123456789ABCDEF".utf8)
        return UInt16(digits[value >> 4]) | UInt16(digits[value & 0x0F]) << 8
    }

    /// The UUID of uppercase canonical text as two big-endian 64-bit halves (the first eight bytes
    /// in `high`), eight digits at a time; `nil` for anything else. Lowercase is refused: only
    /// uppercase text sorts like the bytes it spells, which the reports' keys rely on.
    @inlinable
    public static func uppercaseHalves(_ bytes: UnsafeRawBufferPointer) -> (high: UInt64, low: UInt64)? {
        halves(bytes, lowercase: false)
    }

    /// The one parser of UUID text behind ``parse(_:)-(UnsafeRawBufferPointer)``, ``parseRaw(_:)`` and
    /// ``uppercaseHalves(_:)``: canonical `8-4-4-4-12` text as two big-endian halves, eight digits at a
    /// time; lowercase digits too when `lowercase`. Anything else (another length, a dash out of place,
    /// a sign, a space, braces, a non-hex byte) is `nil`.
    @inlinable @inline(__always)
    static func halves(_ bytes: UnsafeRawBufferPointer, lowercase: Bool) -> (high: UInt64, low: UInt64)? {
        guard bytes.count == 36, let base = bytes.baseAddress,
            base.load(fromByteOffset: 8, as: UInt8.self) == UInt8(ascii: "-"),
            base.load(fromByteOffset: 13, as: UInt8.self) == UInt8(ascii: "-"),
            base.load(fromByteOffset: 18, as: UInt8.self) == UInt8(ascii: "-"),
            base.load(fromByteOffset: 23, as: UInt8.self) == UInt8(ascii: "-")
        else { return nil }
        func eight(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        func four(_ offset: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        guard let a = hex8(eight(0), lowercase: lowercase),
            let b = hex8(four(9) | four(14) << 32, lowercase: lowercase),
            let c = hex8(four(19) | four(24) << 32, lowercase: lowercase),
            let d = hex8(eight(28), lowercase: lowercase)
        else { return nil }
        return (a << 32 | b, c << 32 | d)
    }

    /// Eight ASCII hex digits (the first in the lowest byte) as a 32-bit value; `nil` unless every
    /// byte is `0-9` or `A-F` (or `a-f` when `lowercase`).
    @inlinable @inline(__always)
    static func hex8(_ raw: UInt64, lowercase: Bool) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // With `lowercase`, every byte with bit 6 set loses bit 5 (`a-f` become `A-F`); any other byte
        // so changed is still no uppercase digit, and the test below refuses it.
        let chars = lowercase ? raw & ~((raw & (0x40 * ones)) >> 1) : raw
        // '0'-'9' are 0x30-0x39 and 'A'-'F' 0x41-0x46: the low nibble, plus 9 when bit 6 is set.
        let nibbles = ((chars & (0x0F * ones)) &+ ((chars >> 6) & ones) &* 9) & (0x0F * ones)
        // Valid exactly when the nibbles spell the same bytes back in uppercase.
        let letters = ((nibbles &+ 0x06 * ones) & (0x10 * ones)) >> 4
        guard nibbles &+ 0x30 * ones &+ letters &* 7 == chars else { return nil }
        var value = nibbles.byteSwapped  // first digit in the highest byte
        value = (value | value >> 4) & 0x00FF_00FF_00FF_00FF  // two digits per 16 bits
        value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF  // four per 32
        return (value | value >> 16) & 0xFFFF_FFFF
    }
}
