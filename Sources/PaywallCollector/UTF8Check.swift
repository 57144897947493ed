/// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
/// U+10FFFF), checked in one pass with an ASCII fast path; a request body that is not is refused
/// with 400 before any line is read.
enum UTF8Check {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            var index = 0
            while index < count {
                // Eight ASCII bytes at a time while they last.
                while index + 8 <= count {
                    let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index += 8
                }
                guard index < count else { return true }
                let lead = buffer[index]
                if lead < 0x80 {
                    index += 1
                    continue
                }
                let length: Int
                var low: UInt8 = 0x80
                var high: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0:
                    length = 3
                    low = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED:
                    length = 3
                    high = 0x9F
                case 0xF0:
                    length = 4
                    low = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4:
                    length = 4
                    high = 0x8F
                default: return false
                }
                guard index + length <= count else { return false }
                let second = buffer[index + 1]
                guard second >= low, second <= high else { return false }
                for offset in 2..<max(2, length) where buffer[index + offset] & 0xC0 != 0x80 { return false }
                index += length
            }
            return true
        }
    }
}
