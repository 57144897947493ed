import Foundation

/// Removes an API key, and any piece of it, from text a server sent back, before that text is
/// kept anywhere (a dead-letter reason, a message), in every form an echoing server may use:
///
/// - verbatim, in any letter case (`APPL_…`, `appl_…`), whole, without its prefix, truncated or split;
/// - escaped: JSON `\u0061` (also mixed with plain characters, and `\/`), `\x61`, percent-encoding
///   (`%61`, `%6A`/`%6a`), HTML character references (`&#97;`, `&#x61;`), and one of these
///   inside another (`%255F`, `\u0025…`);
/// - base64 (standard and URL-safe, padded or not) of the key or of any text holding it, such
///   as `Bearer appl_…` or `Authorization: Bearer appl_…`, at any alignment;
/// - hexadecimal (`6170706c5f…`, either case).
///
/// Every stretch of the body that encodes at least ``minimumRun`` consecutive bytes of the key
/// (the whole key when it is shorter) is replaced by `(redacted)`.
///
/// ```swift
/// KeyRedaction.redact(Data("bad key pl_Secret123".utf8), key: "appl_Secret123")   // "bad key (redacted)"
/// ```
public enum KeyRedaction {
    /// The shortest piece of the key that is redacted (7 bytes: shorter runs such as `appl_`
    /// are common text and identify nothing; API keys are refused when they are not clearly longer).
    public static let minimumRun = 7

    /// The most leading bytes of a body that are examined and returned; a dead-letter reason
    /// keeps only its first ``RetryPolicy/maxExcerptBytes``, and this leaves room for every encoding
    /// of a key that starts inside those.
    public static let maximumScannedBytes = 64 * 1024

    /// `body` (its first ``maximumScannedBytes`` bytes) with every stretch that encodes a piece of
    /// `key` of ``minimumRun`` bytes or more replaced; each maximal redacted stretch becomes one `(redacted)`.
    public static func redact(_ body: Data, key: String) -> Data {
        let keyBytes = Array(key.utf8).map(lowercased)
        let bytes = Array(body.prefix(maximumScannedBytes))
        guard !keyBytes.isEmpty else { return Data(bytes) }
        let run = min(minimumRun, keyBytes.count)
        var pieces = Set<UInt64>()
        for start in 0...(keyBytes.count - run) { pieces.insert(window(keyBytes, start, run)) }
        var covered = [Bool](repeating: false, count: bytes.count)
        var found = false
        for view in DecodedView.all(of: bytes) where view.bytes.count >= run {
            let lowered = view.bytes.map(lowercased)
            for start in 0...(lowered.count - run) where pieces.contains(window(lowered, start, run)) {
                for index in start..<(start + run) {
                    for original in view.spans[index] { covered[original] = true }
                }
                found = true
            }
        }
        guard found else { return Data(bytes) }
        var result = Data()
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if covered[index] {
                result.append(contentsOf: Array("(redacted)".utf8))
                while index < bytes.count, covered[index] { index += 1 }
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// `count` bytes at `start` packed into one integer (`count` ≤ 8).
    private static func window(_ bytes: [UInt8], _ start: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<count { value = value << 8 | UInt64(bytes[start + offset]) }
        return value
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
