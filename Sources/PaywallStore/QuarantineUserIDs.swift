import Foundation

/// The customer ids a quarantined input carries, for ``UserErasure`` and ``Suppression``: the
/// `user_id` of a line that parses as a JSON object, or, in a line that does not parse, every value
/// written as `"user_id": "…"` (the text up to the next unescaped quote, JSON escapes decoded).
enum QuarantineUserIDs {
    /// The user ids in `bytes` (one NDJSON line, or a row rendered as JSON).
    static func ids(in bytes: [UInt8]) -> [String] {
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] {
            return (object["user_id"] as? String).map { [$0] } ?? []
        }
        return scanned(bytes)
    }

    /// Whether `bytes` contain the UTF-8 bytes of `needle` anywhere.
    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    private static let key = Array("\"user_id\"".utf8)

    /// Every `"user_id" : "value"` in a line that is not valid JSON.
    static func scanned(_ bytes: [UInt8]) -> [String] {
        var found: [String] = []
        var index = 0
        while index + key.count <= bytes.count {
            guard bytes[index..<(index + key.count)].elementsEqual(key) else {
                index += 1
                continue
            }
            var cursor = index + key.count
            func skipSpace() {
                while cursor < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[cursor]) { cursor += 1 }
            }
            skipSpace()
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else {
                index += 1
                continue
            }
            cursor += 1
            skipSpace()
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            let start = cursor
            cursor += 1
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: "\"") {
                cursor += bytes[cursor] == UInt8(ascii: "\\") ? 2 : 1
            }
            if cursor < bytes.count {
                let literal = Data(bytes[start...cursor])
                if let value = try? JSONSerialization.jsonObject(with: literal, options: [.fragmentsAllowed]) as? String
                {
                    found.append(value)
                } else {
                    found.append(String(decoding: bytes[(start + 1)..<cursor], as: UTF8.self))
                }
            }
            index = cursor
        }
        return found
    }
}
