import Foundation

/// When a piece of text names a customer id, for erasure and suppression alike: as a whole token,
/// never as a substring, so forgetting `42` or `_` touches no other customer's data.
///
/// - In a quarantined input (a bad NDJSON line, or its reasons), the id must be one of the
///   *pieces* its unescaped double quotes cut it into (the text before the first quote, between two
///   consecutive quotes, after the last one), as written or with JSON escapes decoded. That is every
///   JSON string of the line, whatever key it sits under (an escaped `user\u005fid`, an array, a
///   wrong type), and the text after a last quote of a line cut mid-string; and, since both quote
///   parities are pieces, it still holds when a stray quote misaligns the rest. `:1792756142000,`
///   is one piece, so a number that contains the id does not match.
/// - In free text (a dead letter's reason, RevenueCat's answer), the id must stand as a word: not
///   preceded or followed by a letter, digit or one of `_ - . $ @ + %` (characters ids are made of).
///   `HTTP 422` does not name customer `42`; `invalid app_user_id 42` does.
///
/// `forget` deletes the quarantined inputs that carry an id by the first rule; every write path
/// refuses a bad line whose pieces include a suppressed id by the same rule, so a forgotten id is
/// never stored again through the quarantine.
enum IDTokens {
    /// The longest piece worth comparing (no stored id is longer).
    static let maxPieceBytes = UserErasure.maxIDBytes

    /// The pieces of `bytes` (see the type's summary), as written and with JSON escapes decoded;
    /// empty pieces and those longer than any id are left out.
    static func pieces(of bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        func add(_ piece: ArraySlice<UInt8>) {
            guard !piece.isEmpty, piece.count <= maxPieceBytes * 6 else { return }
            if piece.count <= maxPieceBytes { out.append(Array(piece)) }
            if piece.contains(UInt8(ascii: "\\")), let decoded = decode(piece) {
                if decoded.count <= maxPieceBytes, decoded != Array(piece) { out.append(decoded) }
                // A decoded piece may itself quote a value (a reason holding `\"value\"`).
                if decoded.contains(UInt8(ascii: "\"")) {
                    for inner in decoded.split(separator: UInt8(ascii: "\""), omittingEmptySubsequences: true)
                    where inner.count <= maxPieceBytes {
                        out.append(Array(inner))
                    }
                }
            }
        }
        var start = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                add(bytes[start..<index])
                index += 1
                start = index
            default: index += 1
            }
        }
        add(bytes[min(start, bytes.count)..<bytes.count])
        return out
    }

    /// Whether `bytes` carry one of `wanted` (ids' UTF-8 bytes) by the piece rule.
    static func carries(_ bytes: [UInt8], anyOf wanted: Set<[UInt8]>) -> Bool {
        guard !wanted.isEmpty else { return false }
        let shortest = wanted.map(\.count).min() ?? 0
        // Cheap refusal first: no id's bytes occur at all.
        guard wanted.contains(where: { QuarantineUserIDs.contains(bytes, $0) }) || bytes.contains(UInt8(ascii: "\\"))
        else { return false }
        return pieces(of: bytes).contains { $0.count >= shortest && wanted.contains($0) }
    }

    /// The piece's text with JSON escapes decoded (`\uXXXX` with surrogate pairs, `\n`, `\"`, …), or
    /// nil when an escape is malformed.
    static func decode(_ piece: ArraySlice<UInt8>) -> [UInt8]? {
        let quoted = Data([UInt8(ascii: "\"")] + piece + [UInt8(ascii: "\"")])
        guard let text = try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed]) as? String
        else { return nil }
        return Array(text.utf8)
    }

    /// Whether `scalar` can be part of an id written in free text (so it cannot bound one).
    static func isIDCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "@"),
            UInt8(ascii: "+"), UInt8(ascii: "%"):
            true
        case 0x80...0xFF: true  // any non-ASCII letter
        default: false
        }
    }

    /// `text` with each occurrence of `needle` that stands as a word (see the type's summary)
    /// replaced by `replacement`; nil when none does.
    static func replacingWords(_ needle: [UInt8], in text: [UInt8], with replacement: [UInt8]) -> [UInt8]? {
        guard !needle.isEmpty, text.count >= needle.count else { return nil }
        var out: [UInt8] = []
        var index = 0
        var changed = false
        let headIsID = isIDCharacter(needle[0])
        let tailIsID = isIDCharacter(needle[needle.count - 1])
        while index < text.count {
            if index + needle.count <= text.count, text[index] == needle[0],
                text[index..<(index + needle.count)].elementsEqual(needle),
                !(headIsID && index > 0 && isIDCharacter(text[index - 1])),
                !(tailIsID && index + needle.count < text.count && isIDCharacter(text[index + needle.count]))
            {
                out += replacement
                index += needle.count
                changed = true
            } else {
                out.append(text[index])
                index += 1
            }
        }
        return changed ? out : nil
    }
}
