/// Writes JSON string literals (RFC 8259 escaping; non-ASCII UTF-8 kept as is). Shared by the
/// NDJSON writer and RevenueCat's wire format.
public enum JSONString {
    /// Appends `value` to `out` as a JSON string literal, quotes included.
    public static func append(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// Appends `value`'s UTF-8 bytes to `out` as a JSON string literal, quotes included: the same
    /// bytes as ``append(_:to:)`` (only ASCII is escaped, so escaping by byte equals escaping by scalar).
    public static func appendBytes(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "\\"))
            case 0x0A:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "n"))
            case 0x0D:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "r"))
            case 0x09:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "t"))
            case 0x08:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "b"))
            case 0x0C:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "f"))
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `value` as a JSON string literal, quotes included.
    public static func quoted(_ value: String) -> String {
        var out = ""
        append(value, to: &out)
        return out
    }
}
