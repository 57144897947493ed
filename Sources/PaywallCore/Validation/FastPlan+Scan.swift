import Foundation

extension FastPlan {
    /// Where one key's value is in the line: its bytes (a string's without the quotes) and JSON kind.
    struct RawValue {
        static let absent: UInt8 = 0, string: UInt8 = 1, number: UInt8 = 2, null: UInt8 = 3
        var start = 0
        var end = 0
        var kind = RawValue.absent
        /// Whether a string's bytes are all ASCII.
        var ascii = false
    }

    /// The record of a line the plan proves valid, or `nil`: then the full validator decides,
    /// and writes the reasons when the line is invalid.
    func record(line: UnsafeRawBufferPointer) -> EventRecord? {
        withUnsafeTemporaryAllocation(of: RawValue.self, capacity: slotCount) { raw -> EventRecord? in
            raw.initialize(repeating: RawValue())
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
                      let key = scanner.plainString(), key.ascii else { return nil }
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
                    raw[slot] = RawValue(start: text.range.lowerBound, end: text.range.upperBound,
                                         kind: RawValue.string, ascii: text.ascii)
                case UInt8(ascii: "n"):
                    guard (try? scanner.literal("null")) != nil else { return nil }
                    raw[slot].kind = RawValue.null
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard let span = try? scanner.numberSpan() else { return nil }
                    raw[slot] = RawValue(start: span.lowerBound, end: span.upperBound, kind: RawValue.number)
                default:
                    return nil
                }
                scanner.skipWhitespace()
                guard scanner.index < count else { return nil }
                if line[scanner.index] == UInt8(ascii: ",") { scanner.index += 1; continue }
                if line[scanner.index] == UInt8(ascii: "}") { scanner.index += 1; break }
                return nil
            }
        }
        scanner.skipWhitespace()
        return scanner.index == count ? present : nil
    }

    /// The slot of the key at `range`, or -1.
    func slot(_ line: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int {
        let length = range.count
        return keyBytes.withUnsafeBytes { table in
            for key in keys where key.count == length
                && memcmp(table.baseAddress! + key.offset, line.baseAddress! + range.lowerBound, length) == 0 {
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
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<(index - 1), bits < 0x80)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            bits |= byte
            index += 1
        }
        return nil
    }
}
