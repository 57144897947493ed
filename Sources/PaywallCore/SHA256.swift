/// SHA-256 (FIPS 180-4), streaming: feed any number of byte runs, then take the 32-byte digest.
/// Foundation has no hash on Linux and no package can be fetched, so the store keeps this one to
/// identify quarantined lines by their exact bytes (a line of any size, in constant memory).
///
/// ```swift
/// var hash = SHA256()
/// hash.update(Array("ab".utf8)); hash.update(Array("c".utf8))
/// hash.finalize()   // ba7816bf…f20015ad, as SHA256.digest(Array("abc".utf8))
/// ```
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    private var block = [UInt8](repeating: 0, count: 64)
    private var filled = 0
    private var length: UInt64 = 0

    /// A fresh hash.
    public init() {}

    /// The digest of `bytes`.
    public static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA256()
        let array = Array(bytes)
        array.withUnsafeBytes { hash.update($0) }
        return hash.finalize()
    }

    /// Feeds `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if filled > 0 {
            let take = min(64 - filled, bytes.count)
            for index in 0..<take { block[filled + index] = bytes[index] }
            filled += take
            offset = take
            guard filled == 64 else { return }
            block.withUnsafeBytes { compress($0.baseAddress!) }
            filled = 0
        }
        while bytes.count - offset >= 64 {
            compress(bytes.baseAddress! + offset)
            offset += 64
        }
        for index in offset..<bytes.count {
            block[filled] = bytes[index]
            filled += 1
        }
    }

    /// The 32-byte digest of everything fed (the hash is spent afterwards).
    public mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (119 - filled) % 64)
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let saved = length
        update(tail)
        length = saved
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// Lower-case hexadecimal of `digest`.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// One 64-byte block.
    private mutating func compress(_ chunk: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for index in 0..<16 {
                let base = chunk + index * 4
                w[index] =
                    UInt32(base.load(as: UInt8.self)) << 24 | UInt32(base.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(base.load(fromByteOffset: 2, as: UInt8.self)) << 8
                    | UInt32(base.load(fromByteOffset: 3, as: UInt8.self))
            }
            for index in 16..<64 {
                let s0 = Self.rotate(w[index - 15], 7) ^ Self.rotate(w[index - 15], 18) ^ (w[index - 15] >> 3)
                let s1 = Self.rotate(w[index - 2], 17) ^ Self.rotate(w[index - 2], 19) ^ (w[index - 2] >> 10)
                w[index] = w[index - 16] &+ s0 &+ w[index - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for index in 0..<64 {
                    let s1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
                    let choose = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choose &+ k[index] &+ w[index]
                    let s0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
            )
        }
    }
}
