extension FlatJSONScanner {
    /// Reads a string starting at the opening quote: unescapes, checks UTF-8 and control characters.
    mutating func string() throws(FlatJSONError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let text = UTF8Text.string(validating: slice) else {
                    index = start
                    throw fail("string is not valid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw fail("raw control character in a string; escape it") }
            index += 1
        }
        throw fail("unterminated string")
    }

    /// Slow path for strings with escapes.
    private mutating func escapedString(from start: Int) throws(FlatJSONError) -> String {
        var utf8: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let text = UTF8Text.string(validating: utf8) else { throw fail("string is not valid UTF-8") }
                return text
            }
            if byte < 0x20 { throw fail("raw control character in a string; escape it") }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { break }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape())
            default:
                index -= 1
                throw fail("invalid escape sequence")
            }
        }
        throw fail("unterminated string")
    }

    private mutating func hex4() throws(FlatJSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let nibble: UInt8
            switch byte {
            case 0x30...0x39: nibble = byte - 0x30
            case 0x41...0x46: nibble = byte - 0x41 + 10
            case 0x61...0x66: nibble = byte - 0x61 + 10
            default: throw fail("\\u needs four hex digits")
            }
            value = value << 4 | UInt32(nibble)
            index += 1
        }
        return value
    }

    /// Decodes `\uXXXX` (and a following low surrogate) to UTF-8 bytes.
    private mutating func unicodeEscape() throws(FlatJSONError) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
                throw fail("unpaired surrogate in \\u escape")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in \\u escape") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw fail("unpaired surrogate in \\u escape")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
        return Array(String(Character(unicode)).utf8)
    }
}
