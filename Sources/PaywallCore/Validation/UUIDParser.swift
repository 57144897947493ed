import Foundation

/// Parses the canonical 8-4-4-4-12 hexadecimal UUID form (either case) straight from UTF-8,
/// without Foundation's `sscanf`-based parser (the validator parses up to three per event).
enum UUIDParser {
    /// The UUID, or `nil` unless `text` is exactly 36 characters of canonical form.
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// The UUID, or `nil` unless `bytes` are exactly the 36 bytes of canonical form.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> UUID? {
        parseRaw(bytes).map(UUID.init(uuid:))
    }

    /// The 16 bytes of the UUID, or `nil` unless `bytes` are exactly the 36 bytes of canonical form.
    static func parseRaw(_ bytes: UnsafeRawBufferPointer) -> uuid_t? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
              bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-") else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let invalid = hexValues.withUnsafeBufferPointer { table -> UInt8 in
            withUnsafeMutableBytes(of: &raw) { out -> UInt8 in
                var invalid: UInt8 = 0
                var position = 0
                for index in 0..<16 {
                    if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                    let high = table[Int(bytes[position])], low = table[Int(bytes[position + 1])]
                    invalid |= high | low
                    out[index] = high &<< 4 | low
                    position += 2
                }
                return invalid & 0x10
            }
        }
        return invalid == 0 ? raw : nil
    }

    /// Each byte's hexadecimal digit value, or 0x10 when it is no hexadecimal digit.
    static let hexValues: [UInt8] = (0...255).map { nibble(UInt8($0)) ?? 0x10 }

    @inline(__always)
    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
