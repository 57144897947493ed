/// Escaping for text placed in HTML and SVG: every value drawn from event data goes through it.
///
/// Data text (placements, products, any cell) is shown as what it is: markup is escaped, it is
/// isolated from the text around it (``data(_:)`` wraps it in `<bdi>`, so a right-to-left name
/// cannot reorder the page's own words or a neighbouring cell), and characters that are invisible
/// or reorder text (``isHidden(_:)``: C0 and C1 controls with NUL, TAB and newlines, the bidi
/// embeddings, overrides, isolates and marks, line and paragraph separators, zero-width spaces and
/// joiners that no name needs, the byte-order mark, the soft hyphen) are shown as their code point,
/// `U+202E`, marked (`<span class="ctl">`) so they cannot pass for typed text.
public enum HTMLEscaping {
    /// Escapes `& < > " '` so the text is shown as text, in element content and in attributes.
    ///
    /// Design note: it works on the UTF-8 bytes (the five characters are ASCII, and a byte below
    /// 0x80 is never part of another character's encoding, so every other character's bytes are
    /// copied whole) and returns text without any of them as it is: a page escapes every title and
    /// label of its charts, and appending scalar by scalar was most of the cost of drawing them.
    public static func escape(_ text: String) -> String {
        var text = text
        let escaped: String? = text.withUTF8 { bytes in
            guard let first = bytes.firstIndex(where: { Self.entity($0) != nil }) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            out.append(contentsOf: bytes[..<first])
            for byte in bytes[first...] {
                if let entity = Self.entity(byte) {
                    entity.withUTF8Buffer { out.append(contentsOf: $0) }
                } else {
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
        return escaped ?? text
    }

    /// The entity of an ASCII byte that must be escaped, `nil` for any other byte.
    @inline(__always)
    static func entity(_ byte: UInt8) -> StaticString? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }

    /// Data text for element content: escaped, hidden characters shown as marked code points, and
    /// isolated in `<bdi>`.
    ///
    /// ```swift
    /// HTMLEscaping.data("a\u{202E}b")   // <bdi>a<span class="ctl">U+202E</span>b</bdi>
    /// ```
    public static func data(_ text: String) -> String {
        "<bdi>" + visible(text) { "<span class=\"ctl\">\($0)</span>" } + "</bdi>"
    }

    /// Data text for an attribute value or SVG text (where no element can mark it): escaped, hidden
    /// characters shown as their code point in brackets, `[U+202E]`.
    public static func attribute(_ text: String) -> String {
        visible(text) { "[\($0)]" }
    }

    /// `text` escaped, each hidden character replaced by `mark("U+XXXX")`.
    static func visible(_ text: String, mark: (String) -> String) -> String {
        // Printable ASCII (0x20…0x7E) has no hidden character: only non-ASCII text needs the scalar check.
        let printableASCII = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        guard !printableASCII, text.unicodeScalars.contains(where: isHidden) else { return escape(text) }
        var out = ""
        var run = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isHidden(scalar) else {
                run.append(scalar)
                continue
            }
            out += escape(String(run))
            run = String.UnicodeScalarView()
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += mark("U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex)
        }
        return out + escape(String(run))
    }

    /// Whether `scalar` is invisible or reorders text, and is shown as its code point in the page.
    /// The zero-width joiner and non-joiner (emoji sequences, Persian and Indic scripts) and the
    /// variation selectors are left as they are: names need them.
    public static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0 (NUL, TAB, LF, CR…), DEL, C1
        case 0x00AD, 0x061C, 0x180E: return true  // soft hyphen, Arabic letter mark, Mongolian vowel separator
        case 0x200B, 0x200E, 0x200F: return true  // zero-width space, left-to-right and right-to-left marks
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x202A...0x202E: return true  // embeddings, pop, overrides
        case 0x2060...0x2064, 0x2066...0x2069: return true  // word joiner, invisible operators, isolates
        case 0xFEFF, 0xFFF9...0xFFFB: return true  // byte-order mark, interlinear annotation
        default: return false
        }
    }
}
