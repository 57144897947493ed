import PaywallCore

/// How a quarantined payload that is not valid UTF-8 is shown as text.
public enum QuarantinePayload {
    /// `bytes` as text: valid UTF-8 as it is; each maximal invalid subsequence (as Unicode's
    /// "U+FFFD substitution of maximal subparts" splits it) shown byte by byte as `\xHH`.
    /// `valid` says whether no byte needed it.
    ///
    /// ```swift
    /// QuarantinePayload.display([0x61, 0xFF, 0x62])   // ("a\\xFFb", valid: false)
    /// ```
    public static func display(_ bytes: [UInt8]) -> (text: String, valid: Bool) {
        if let text = UTF8Text.string(validating: bytes) { return (text, true) }
        var out = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                out.append(Unicode.UTF8.decode(encoded))
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<(offset + length)] {
                    out.append(contentsOf: ["\\", "x", digits[Int(byte >> 4)], digits[Int(byte & 15)]])
                }
                offset += length
            case .emptyInput:
                break loop
            }
        }
        return (String(out), false)
    }
}
