import Foundation

/// Time-ordered UUIDs (RFC 9562 version 7): ids generated in time order land at the end of
/// the store's key index, which keeps ingest fast (random UUIDv4 keys scatter inserts over the
/// whole index: `Sources/PaywallStore/IMPORT-FAST-PATH.md` measures both).
public enum UUIDv7 {
    /// A new version-7 UUID for the given Unix millisecond time, with random low bits.
    public static func make(milliseconds: Int64) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return make(milliseconds: milliseconds, using: &generator)
    }

    /// A new version-7 UUID drawing its random bits from `generator` (seeded in simulations).
    public static func make(milliseconds: Int64, using generator: inout some RandomNumberGenerator) -> UUID {
        let ms = UInt64(clamping: max(0, milliseconds))
        let random1 = generator.next() as UInt64
        let random2 = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: ms >> (8 * (5 - index))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: random1 >> 60)
        bytes[7] = UInt8(truncatingIfNeeded: random1 >> 52)
        bytes[8] = 0x80 | UInt8(truncatingIfNeeded: random2 >> 58)
        for index in 9..<16 { bytes[index] = UInt8(truncatingIfNeeded: random2 >> (8 * (15 - index))) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
