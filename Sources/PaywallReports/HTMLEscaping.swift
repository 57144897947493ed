/// Escaping for text placed in HTML and SVG: every value drawn from event data goes through it.
public enum HTMLEscaping {
    /// Escapes `& < > " '` so the text is shown as text, in element content and in attributes.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
