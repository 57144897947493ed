/// The byte-level scanner behind ``FlatJSON``.
struct FlatJSONScanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func fail(_ message: String) -> FlatJSONError { FlatJSONError(offset: index, message: message) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(FlatJSONError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(what)") }
        index += 1
    }

    mutating func object() throws(FlatJSONError) -> [(key: String, value: FlatJSONValue)] {
        skipWhitespace()
        guard index < bytes.count else { throw fail("empty line; expected a JSON object") }
        guard bytes[index] == UInt8(ascii: "{") else {
            if bytes.count - index >= 3, bytes[index] == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                throw fail(
                    "the line starts with a UTF-8 byte-order mark (U+FEFF), accepted only at the very start of "
                        + "the input (two files joined into one?); remove it")
            }
            throw fail("expected a JSON object starting with '{'")
        }
        index += 1
        var members: [(key: String, value: FlatJSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw fail("expected a quoted key")
                }
                let key = try string()
                try expect(UInt8(ascii: ":"), "':' after a key")
                members.append((key, try value()))
                skipWhitespace()
                guard index < bytes.count else { throw fail("unterminated object; expected ',' or '}'") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                }
                throw fail("expected ',' or '}'")
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the object") }
        return members
    }

    mutating func value() throws(FlatJSONError) -> FlatJSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fail("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let kind = bytes[index] == UInt8(ascii: "{") ? "object" : "array"
            try skipNested()
            return .nested(kind)
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: StaticString) throws(FlatJSONError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unknown literal; expected a JSON value") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("unknown literal; expected a JSON value")
        }
        index += count
    }

    /// Checks the JSON number grammar and returns the number's text.
    mutating func number() throws(FlatJSONError) -> String {
        let span = try numberSpan()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[span]), as: UTF8.self)
    }

    /// Checks the JSON number grammar and returns where the number's text is.
    mutating func numberSpan() throws(FlatJSONError) -> Range<Int> {
        let start = index
        func digit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, digit(bytes[index]) else {
            index = start
            throw fail("expected a JSON value (string, number, true, false, null)")
        }
        if bytes[index] == 0x30 { index += 1 } else { while index < bytes.count, digit(bytes[index]) { index += 1 } }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, digit(bytes[index]) else { throw fail("expected digits after '.'") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, digit(bytes[index]) else { throw fail("expected digits in the exponent") }
            while index < bytes.count, digit(bytes[index]) { index += 1 }
        }
        return start..<index
    }

    /// Skips an object or array, checking only that brackets balance outside strings.
    mutating func skipNested() throws(FlatJSONError) {
        var depth = 0
        repeat {
            guard index < bytes.count else { throw fail("unterminated nested value") }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                _ = try string()
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > FlatJSON.maxDepth { throw fail("nesting deeper than \(FlatJSON.maxDepth)") }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
            index += 1
        } while depth > 0
    }
}
