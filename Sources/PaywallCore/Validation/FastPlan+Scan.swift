import Foundation

extension FastPlan {
    /// Where one key's value is in the line — its bytes (a string's without the quotes) and JSON
    /// kind — and, once checked, its typed value. Plain data: a line's slots need no cleanup.
    struct RawValue {
        static let absent: UInt8 = 0, string: UInt8 = 1, number: UInt8 = 2, null: UInt8 = 3
        /// What ``typed`` says the checked value is (``CatalogValue``'s cases; an enum value is a choice).
        static let unchecked: UInt8 = 0, uuid: UInt8 = 1, integer: UInt8 = 2, double: UInt8 = 3, text: UInt8 = 4,
            choice: UInt8 = 5
        var start = 0
        var end = 0
        var kind = RawValue.absent
        /// Whether a string's bytes are all ASCII.
        var ascii = false
        var typed = RawValue.unchecked
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var integer: Int64 = 0
        var double: Double = 0
        /// The index in ``FastPlan/choices`` of an enum value.
        var choice = 0
    }

    /// The record of a line the plan proves valid, or `nil`: then the full validator decides,
    /// and writes the reasons when the line is invalid.
    func record(line: UnsafeRawBufferPointer) -> EventRecord? {
        withUnsafeTemporaryAllocation(of: RawValue.self, capacity: slotCount) { raw -> EventRecord? in
            raw.initialize(repeating: RawValue())
            defer { raw.deinitialize() }
            guard let present = scan(line, into: raw) else { return nil }
            return check(line, raw, present: present)
        }
    }

    /// Reads the flat object's members into their slots, with the grammar of ``FlatJSONScanner``;
    /// returns the present keys' slot bits, or `nil` for anything the full parser must judge: an
    /// unknown or repeated key, an escape, a boolean, a nested value, a syntax error.
    func scan(_ line: UnsafeRawBufferPointer, into raw: UnsafeMutableBufferPointer<RawValue>) -> UInt64? {
        var scanner = FlatJSONScanner(bytes: line)
        let count = line.count
        var present: UInt64 = 0
        scanner.skipWhitespace()
        guard scanner.index < count, line[scanner.index] == UInt8(ascii: "{") else { return nil }
        scanner.index += 1
        scanner.skipWhitespace()
        if scanner.index < count, line[scanner.index] == UInt8(ascii: "}") {
            scanner.index += 1
        } else {
            while true {
                scanner.skipWhitespace()
                guard scanner.index < count, line[scanner.index] == UInt8(ascii: "\""),
                    let key = scanner.plainString(), key.ascii
                else { return nil }
                let slot = self.slot(line, key.range)
                guard slot >= 0, present & (1 << UInt64(slot)) == 0 else { return nil }
                present |= 1 << UInt64(slot)
                scanner.skipWhitespace()
                guard scanner.index < count, line[scanner.index] == UInt8(ascii: ":") else { return nil }
                scanner.index += 1
                scanner.skipWhitespace()
                guard scanner.index < count else { return nil }
                switch line[scanner.index] {
                case UInt8(ascii: "\""):
                    guard let text = scanner.plainString() else { return nil }
                    raw[slot] = RawValue(
                        start: text.range.lowerBound, end: text.range.upperBound,
                        kind: RawValue.string, ascii: text.ascii)
                case UInt8(ascii: "n"):
                    guard (try? scanner.literal("null")) != nil else { return nil }
                    raw[slot].kind = RawValue.null
                case let byte where byte == UInt8(ascii: "-") || (byte &- 0x30) < 10:
                    guard let span = try? scanner.numberSpan() else { return nil }
                    raw[slot] = RawValue(start: span.lowerBound, end: span.upperBound, kind: RawValue.number)
                default:
                    return nil
                }
                scanner.skipWhitespace()
                guard scanner.index < count else { return nil }
                if line[scanner.index] == UInt8(ascii: ",") {
                    scanner.index += 1
                    continue
                }
                if line[scanner.index] == UInt8(ascii: "}") {
                    scanner.index += 1
                    break
                }
                return nil
            }
        }
        scanner.skipWhitespace()
        return scanner.index == count ? present : nil
    }

    /// The slot of the key at `range`, or -1.
    func slot(_ line: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int {
        let length = range.count
        guard length > 0 else { return -1 }
        let first = line[range.lowerBound]
        let last = line[range.upperBound - 1]
        return keyBytes.withUnsafeBytes { table in
            for key in keys
            where key.count == length && key.first == first && key.last == last
                && memcmp(table.baseAddress! + key.offset, line.baseAddress! + range.lowerBound, length) == 0
            {
                return key.slot
            }
            return -1
        }
    }
}

extension FlatJSONScanner {
    /// A string with no escape and no control character, from its opening quote: its content's
    /// range and whether it is ASCII; `nil` for any other string (the full parser reads it).
    mutating func plainString() -> (range: Range<Int>, ascii: Bool)? {
        index += 1
        let start = index
        var bits: UInt64 = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        if let base = bytes.baseAddress {
            // Eight bytes at a time while none is a quote, a backslash or a control character
            // (the classic "has a zero byte" / "has a byte less than n" word tests).
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                if special & highs != 0 { break }
                bits |= word
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<(index - 1), bits & highs == 0)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            bits |= UInt64(byte)
            index += 1
        }
        return nil
    }
}
