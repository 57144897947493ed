/// A decoding of a byte string: each decoded byte with the range of original bytes it came from,
/// so a key found in the decoding can be cut out of the original. ``KeyRedaction`` searches every
/// view ``all(of:)`` returns.
struct DecodedView {
    /// The decoded bytes.
    var bytes: [UInt8] = []
    /// For each decoded byte, the original bytes that encode it.
    var spans: [Range<Int>] = []

    /// Never part of a key (keys are visible ASCII): separates the runs of a base64 or hex view.
    private static let separator: UInt8 = 0

    /// The original bytes; those with their escapes decoded, once and twice; the base64 (4
    /// alignments) and hexadecimal (2 alignments) decodings of the twice-decoded text.
    static func all(of original: [UInt8]) -> [DecodedView] {
        let identity = DecodedView(bytes: original, spans: original.indices.map { $0..<($0 + 1) })
        let once = identity.unescaped()
        let twice = once.unescaped()
        return [identity, once, twice] + (0..<4).map { twice.base64(offset: $0) }
            + (0..<2).map { twice.hex(offset: $0) }
    }

    private mutating func append(_ byte: UInt8, _ span: Range<Int>) {
        bytes.append(byte)
        spans.append(span)
    }

    /// The span covering decoded bytes `range` of this view.
    private func span(_ range: Range<Int>) -> Range<Int> {
        spans[range.lowerBound].lowerBound..<spans[range.upperBound - 1].upperBound
    }

    /// JSON `\uXXXX` and `\/` `\\` `\"` `\n` `\r`, `\xXX`, `%XX` and `&#N;` / `&#xH;` decoded; anything else kept.
    func unescaped() -> DecodedView {
        var view = DecodedView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = escape(at: index) {
                let source = span(index..<(index + length))
                for byte in String(scalar).utf8 { view.append(byte, source) }
                index += length
            } else {
                view.append(bytes[index], spans[index])
                index += 1
            }
        }
        return view
    }

    /// The escape starting at `index`: the character it stands for and its length in bytes.
    private func escape(at index: Int) -> (Unicode.Scalar, Int)? {
        switch bytes[index] {
        case UInt8(ascii: "\\"):
            guard index + 1 < bytes.count else { return nil }
            switch bytes[index + 1] {
            case UInt8(ascii: "u"), UInt8(ascii: "U"): return hexScalar(from: index + 2, digits: 4, length: 6)
            case UInt8(ascii: "x"), UInt8(ascii: "X"): return hexScalar(from: index + 2, digits: 2, length: 4)
            case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "\""): return (Unicode.Scalar(bytes[index + 1]), 2)
            case UInt8(ascii: "n"): return ("\n", 2)
            case UInt8(ascii: "r"): return ("\r", 2)
            default: return nil
            }
        case UInt8(ascii: "%"):
            return hexScalar(from: index + 1, digits: 2, length: 3)
        case UInt8(ascii: "&"):
            return characterReference(at: index)
        default:
            return nil
        }
    }

    /// `digits` hex digits at `start` as a scalar, the whole escape being `length` bytes.
    private func hexScalar(from start: Int, digits: Int, length: Int) -> (Unicode.Scalar, Int)? {
        guard start + digits <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[start..<(start + digits)] {
            guard let digit = Self.hexValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    /// `&#97;` or `&#x61;` (at most 8 digits) at `index`.
    private func characterReference(at index: Int) -> (Unicode.Scalar, Int)? {
        guard index + 3 < bytes.count, bytes[index + 1] == UInt8(ascii: "#") else { return nil }
        let isHex = bytes[index + 2] | 0x20 == UInt8(ascii: "x")
        var cursor = index + (isHex ? 3 : 2)
        var value: UInt32 = 0
        let first = cursor
        while cursor < bytes.count, cursor - first < 8 {
            let digit =
                isHex
                ? Self.hexValue(bytes[cursor])
                : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor])
                    ? bytes[cursor] - UInt8(ascii: "0") : nil
            guard let digit else { break }
            value = value * (isHex ? 16 : 10) + UInt32(digit)
            cursor += 1
        }
        guard cursor > first, cursor < bytes.count, bytes[cursor] == UInt8(ascii: ";") else { return nil }
        return Unicode.Scalar(value).map { ($0, cursor + 1 - index) }
    }

    /// Every run of base64 characters (both alphabets; line breaks inside a run skipped, as MIME
    /// wraps lines) decoded from its `offset`-th character on, four characters to three bytes,
    /// runs separated by ``separator``.
    func base64(offset: Int) -> DecodedView {
        var view = DecodedView()
        let lineBreaks: Set<UInt8> = [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
        for run in runs(where: { Self.base64Value($0) != nil || lineBreaks.contains($0) }, minimumLength: 10) {
            let characters = run.compactMap { index in Self.base64Value(bytes[index]).map { (value: $0, index: index) }
            }
            var start = offset
            while start + 1 < characters.count {
                let group = characters[start..<min(start + 4, characters.count)]
                // 2 characters make 1 byte, 3 make 2, 4 make 3.
                for byte in 0..<(group.count - 1) {
                    let first = group[group.startIndex + byte]
                    let second = group[group.startIndex + byte + 1]
                    let high = first.value << (2 + 2 * byte)
                    let low = second.value >> (4 - 2 * byte)
                    view.append(high | low, span(first.index..<(second.index + 1)))
                }
                start += 4
            }
            view.append(Self.separator, span(run))
        }
        return view
    }

    /// Every run of hex digits decoded from its `offset`-th digit on, two digits to a byte.
    func hex(offset: Int) -> DecodedView {
        var view = DecodedView()
        for run in runs(where: { Self.hexValue($0) != nil }, minimumLength: 14) {
            var index = run.lowerBound + offset
            while index + 1 < run.upperBound {
                view.append(
                    Self.hexValue(bytes[index])! << 4 | Self.hexValue(bytes[index + 1])!, span(index..<(index + 2)))
                index += 2
            }
            view.append(Self.separator, span(run))
        }
        return view
    }

    /// The maximal runs of bytes satisfying `member`, at least `minimumLength` long.
    private func runs(where member: (UInt8) -> Bool, minimumLength: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start: Int?
        for index in 0...bytes.count {
            let inside = index < bytes.count && member(bytes[index])
            if inside, start == nil { start = index }
            if !inside, let first = start {
                if index - first >= minimumLength { result.append(first..<index) }
                start = nil
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
