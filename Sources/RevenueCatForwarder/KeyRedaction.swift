import Foundation

/// Removes an API key, and any fragment of it, from text a server sent back, before that text is
/// kept anywhere (a dead-letter reason, a message). An echoing server may return the key whole,
/// without its `appl_` prefix, truncated or split; every run of bytes that shares at least
/// ``minimumRun`` consecutive bytes with the key is replaced by `(redacted)`.
///
/// ```swift
/// KeyRedaction.redact(Data("bad key pl_Secret123".utf8), key: "appl_Secret123")   // "bad key (redacted)"
/// ```
public enum KeyRedaction {
    /// The shortest fragment of the key that is redacted (8 bytes: shorter runs such as `appl_`
    /// are common text and identify nothing).
    public static let minimumRun = 8

    /// `body` with every byte covered by an 8-byte window equal to some 8-byte slice of `key`
    /// replaced; each maximal covered run becomes one `(redacted)`.
    public static func redact(_ body: Data, key: String) -> Data {
        let keyBytes = Array(key.utf8)
        let bytes = Array(body)
        guard keyBytes.count >= minimumRun, bytes.count >= minimumRun else { return body }
        var slices = Set<UInt64>()
        for start in 0...(keyBytes.count - minimumRun) { slices.insert(window(keyBytes, start)) }
        var covered = [Bool](repeating: false, count: bytes.count)
        var found = false
        for start in 0...(bytes.count - minimumRun) where slices.contains(window(bytes, start)) {
            for index in start..<(start + minimumRun) { covered[index] = true }
            found = true
        }
        guard found else { return body }
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

    /// The 8 bytes at `start` packed into one integer.
    private static func window(_ bytes: [UInt8], _ start: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<minimumRun { value = value << 8 | UInt64(bytes[start + offset]) }
        return value
    }
}
