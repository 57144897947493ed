/// A JSON value as a webhook body holds it, with every number kept as its exact text (so a price
/// becomes micro-dollars without passing through a binary float) and object members in their order.
///
/// Design note: a parser of its own, not Foundation's `JSONSerialization`, because that one gives
/// numbers as `Double` / `NSNumber` (4.99 is not exactly a binary float, and `true` and `1` look
/// alike on some platforms), and the body's exact number text is what the money is computed from.
/// It is small, a recursive descent over bytes bounded to ``maxDepth`` levels (no unbounded
/// recursion on a public route), and fuzzed (`scripts/fuzz webhook`, replayed by the test suite).
///
/// ```swift
/// let value = try WebhookJSON.parse(Array(#"{"event":{"price":4.99}}"#.utf8))
/// ```
public indirect enum WebhookJSON: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as written (e.g. `"4.99"`, `"-1e3"`).
    case number(String)
    /// A string, escapes decoded.
    case string(String)
    /// An array.
    case array([WebhookJSON])
    /// An object's members in document order (a repeated key keeps its last value, as most parsers do).
    case object([(key: String, value: WebhookJSON)])

    /// The deepest nesting parsed; deeper input is refused (no recursion without bound).
    public static let maxDepth = 64

    /// Why a body is not JSON: what and at which byte offset.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public let problem: String
        /// The 0-based byte offset where it was found.
        public let offset: Int
        /// `"<problem> at byte <offset>"`.
        public var description: String { "\(problem) at byte \(offset)" }
    }

    /// The member named `key` of an object (the last one when repeated), or `nil`.
    public subscript(key: String) -> WebhookJSON? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The JSON type's name, for reasons (`"a string"`, `"a number"`, …).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Equal values: texts compared by their UTF-8 bytes, members in order.
    public static func == (lhs: WebhookJSON, rhs: WebhookJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): Array(a.utf8) == Array(b.utf8)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count
                && zip(a, b).allSatisfy { Array($0.key.utf8) == Array($1.key.utf8) && $0.value == $1.value }
        default: false
        }
    }

    /// The value written back as compact JSON (numbers as their text, strings escaped as needed):
    /// parsing it again gives an equal value.
    public var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let text): text
        case .string(let text): Self.quoted(text)
        case .array(let elements): "[" + elements.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { Self.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(control.value, radix: 16).count)
                    + String(control.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Parses one JSON text (RFC 8259: whitespace around one value, UTF-8, no trailing data).
    ///
    /// - Throws: ``ParseError`` naming the first problem.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> WebhookJSON {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("data after the JSON value") }
        return value
    }
}

/// A recursive-descent parser over bytes, bounded by ``WebhookJSON/maxDepth``.
private struct Parser {
    let bytes: [UInt8]
    var index = 0

    func error(_ problem: String) -> WebhookJSON.ParseError { .init(problem: problem, offset: index) }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(WebhookJSON.ParseError) -> WebhookJSON {
        guard depth < WebhookJSON.maxDepth else { throw error("nesting deeper than \(WebhookJSON.maxDepth) levels") }
        guard index < bytes.count else { throw error("unexpected end of the body") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(WebhookJSON.ParseError) {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("unexpected character")
        }
        index += expected.count
    }

    mutating func object(depth: Int) throws(WebhookJSON.ParseError) -> WebhookJSON {
        index += 1
        var members: [(key: String, value: WebhookJSON)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipSpace()
            members.append((key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of the body") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    mutating func array(depth: Int) throws(WebhookJSON.ParseError) -> WebhookJSON {
        index += 1
        var elements: [WebhookJSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of the body") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    mutating func number() throws(WebhookJSON.ParseError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout Parser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
            {
                parser.index += 1
            }
            return parser.index - from
        }
        guard index < bytes.count else { throw error("a number without digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw error("a number without digits")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("a number without digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw error("a number without exponent digits") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A string token (the opening quote at `index`), escapes decoded; invalid UTF-8, raw control
    /// characters and lone surrogates are refused.
    mutating func string() throws(WebhookJSON.ParseError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("a string without its closing quote") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                // Decoding replaces invalid UTF-8 with U+FFFD, so a text that does not give its bytes back was not UTF-8.
                let text = String(decoding: out, as: UTF8.self)
                guard text.utf8.elementsEqual(out) else { throw error("a string that is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("a string without its closing quote") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("a lone surrogate escape") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("a lone surrogate escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw error("an invalid escape")
                }
            case 0x00..<0x20:
                throw error("a control character inside a string")
            default:
                out.append(byte)
                index += 1
            }
        }
    }

    mutating func hex4() throws(WebhookJSON.ParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("an invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("an invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
