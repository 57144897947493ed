/// Text from elsewhere (a server's answer, a user's argument) made safe to print on a terminal or
/// store as a message: control characters are shown as `\u{…}` escapes instead of being sent raw, so
/// an answer cannot set the terminal's title, move the cursor, erase lines or fake output with
/// escape sequences (ESC, BEL, CR, backspace, the C1 controls), nor reorder text with the Unicode
/// direction overrides and line separators.
public enum TerminalText {
    /// `text` with every control character, direction override and line or paragraph separator
    /// written as `\u{HEX}`; a backslash is kept as it is, all other text unchanged.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` may change what a terminal shows beyond printing itself.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0 (tab and newline included), DEL, C1
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // direction marks and overrides
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }
}
