import Foundation

/// The forms in which a server may echo an API key, and a search for the key in all of them, so a
/// test can make a stand-in echo every form and then look for every form in every byte written.
///
/// The search is independent of the product's redaction: it encodes the key (and every piece of
/// ``pieceLength`` bytes of it) forward and looks for the encodings.
///
/// ```swift
/// for echo in KeyForms.echoes(of: key) { standIn.enqueue(.status(400, body: echo.body)) }
/// #expect(KeyForms.leaks(of: key, in: fileBytes).isEmpty)
/// ```
public enum KeyForms {
    /// The shortest piece of the key that counts as a leak.
    public static let pieceLength = 7

    /// One echoed form: its name and a JSON response body holding it.
    public struct Echo: Sendable {
        /// What the form is, e.g. `percent-encoded (lower hex)`.
        public var form: String
        /// The response body.
        public var body: String
    }

    /// One body per form: verbatim, lower and upper case, 7-byte pieces, every per-character
    /// escape (JSON `\u`, mixed, `\x`, percent upper/lower/mixed/double, HTML references, hex),
    /// and base64 (standard and URL-safe) of the key, of `Bearer key`, of `Authorization: Bearer key`
    /// and of the key behind one and two other bytes (the three alignments).
    public static func echoes(of key: String) -> [Echo] {
        let bytes = Array(key.utf8)
        var result: [Echo] = [
            Echo(form: "verbatim", body: message(key)),
            Echo(form: "lower case", body: message(key.lowercased())),
            Echo(form: "upper case", body: message(key.uppercased())),
            Echo(
                form: "pieces of 7 bytes",
                body: message(
                    stride(from: 0, to: bytes.count, by: pieceLength).map { start in
                        String(decoding: bytes[start..<min(start + pieceLength, bytes.count)], as: UTF8.self)
                    }.joined(separator: " ... "))),
        ]
        for (name, encode) in perCharacter {
            // JSON escapes go into the body raw (they are escapes of the JSON string itself).
            result.append(Echo(form: name, body: message(bytes.enumerated().map { encode($1, $0) }.joined())))
        }
        let plaintexts = [
            ("the key", key), ("Bearer key", "Bearer \(key)"),
            ("Authorization: Bearer key", "Authorization: Bearer \(key)"),
            ("the key after 1 byte", "x\(key)"), ("the key after 2 bytes", "xy\(key)"),
            ("the lower-case key", key.lowercased()),
        ]
        for (name, plaintext) in plaintexts {
            let standard = Data(plaintext.utf8).base64EncodedString()
            result.append(Echo(form: "base64 of \(name)", body: message(standard)))
            result.append(Echo(form: "url-safe base64 of \(name)", body: message(urlSafe(standard))))
        }
        return result
    }

    /// The forms of `key`, or of any piece of ``pieceLength`` bytes of it, found in `bytes`
    /// (empty when none is there).
    public static func leaks(of key: String, in bytes: Data) -> [String] {
        let lowered = Data(bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 })
        var found: [String] = []
        for variant in Set([key, key.lowercased(), key.uppercased()]) {
            let keyBytes = Array(variant.utf8)
            guard keyBytes.count >= pieceLength else { continue }
            for start in 0...(keyBytes.count - pieceLength) {
                let piece = Array(keyBytes[start..<(start + pieceLength)])
                let plain = String(decoding: piece, as: UTF8.self).lowercased()
                if lowered.range(of: Data(plain.utf8)) != nil { found.append("piece \"\(plain)\"") }
                for (name, encode) in perCharacter {
                    let encoded = piece.enumerated().map { encode($1, start + $0) }.joined().lowercased()
                    if lowered.range(of: Data(encoded.utf8)) != nil { found.append("\(name) \"\(encoded)\"") }
                }
            }
            for core in base64Cores(of: keyBytes)
            where bytes.range(of: Data(core.utf8)) != nil || bytes.range(of: Data(urlSafe(core).utf8)) != nil {
                found.append("base64 \"\(core)\"")
            }
        }
        return found
    }

    /// Per-character encodings; the index lets a form mix escaped and plain characters.
    static let perCharacter: [(String, @Sendable (UInt8, Int) -> String)] = [
        ("JSON \\u escapes", { byte, _ in String(format: "\\u%04x", byte) }),
        ("JSON \\u escapes (upper hex)", { byte, _ in String(format: "\\u%04X", byte) }),
        ("mixed JSON escapes", { byte, index in index % 2 == 0 ? String(format: "\\u%04x", byte) : plain(byte) }),
        ("\\x escapes", { byte, _ in String(format: "\\x%02x", byte) }),
        ("percent-encoded (upper hex)", { byte, _ in String(format: "%%%02X", byte) }),
        ("percent-encoded (lower hex)", { byte, _ in String(format: "%%%02x", byte) }),
        ("mixed percent-encoding", { byte, index in index % 3 == 1 ? plain(byte) : String(format: "%%%02x", byte) }),
        ("double percent-encoding", { byte, _ in String(format: "%%25%02X", byte) }),
        ("HTML decimal references", { byte, _ in "&#\(byte);" }),
        ("HTML hex references", { byte, _ in String(format: "&#x%02x;", byte) }),
        ("hexadecimal", { byte, _ in String(format: "%02x", byte) }),
        ("hexadecimal (upper)", { byte, _ in String(format: "%02X", byte) }),
    ]

    private static func plain(_ byte: UInt8) -> String { String(decoding: [byte], as: UTF8.self) }

    private static func message(_ echoed: String) -> String {
        "{\"code\":7225,\"message\":\"Invalid API key: \(echoed)\"}"
    }

    private static func urlSafe(_ base64: String) -> String {
        String(
            base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").prefix {
                $0 != "="
            })
    }

    /// For each piece of ``pieceLength``+ bytes and each of the three alignments, the base64
    /// characters that depend on the piece's bytes only (whatever comes before and after it).
    private static func base64Cores(of key: [UInt8]) -> [String] {
        var cores: [String] = []
        for start in 0...(key.count - pieceLength) {
            let piece = key[start...]
            for alignment in 0..<3 {
                let encoded = Array((Data(repeating: 0, count: alignment) + piece).base64EncodedString().utf8)
                let first = [0, 2, 3][alignment]
                let core = encoded.dropFirst(first)
                // Only the characters lying wholly inside the first pieceLength bytes of the piece.
                let length = (pieceLength * 8 - [0, 4, 2][alignment]) / 6
                if core.count >= length { cores.append(String(decoding: core.prefix(length), as: UTF8.self)) }
            }
        }
        return cores
    }
}
