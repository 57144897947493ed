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

    /// `value` as a JSON string literal, quotes included.
    public static func quoted(_ value: String) -> String {
        var out = ""
        append(value, to: &out)
        return out
    }
}
