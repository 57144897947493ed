import Foundation

/// Writes a UUID's uppercase canonical text (`uuidString` form) into a stack buffer, without
/// allocating a `String`: the recorder's and import's hot loops bind ids this way.
enum UUIDText {
    /// The two uppercase hex digits of every byte value, first digit in the low byte.
    private static let pairs: [UInt16] = (0..<256).map { value in
        let digits = Array("0123456789ABCDEF".utf8)
        return UInt16(digits[value >> 4]) | UInt16(digits[value & 0x0F]) << 8
    }

    /// Calls `body` with the 36 bytes of `uuid`'s uppercase canonical text.
    static func withCanonical<R>(_ uuid: UUID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = uuid.uuid
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            let text = UnsafeMutableRawPointer(out.baseAddress!)
            pairs.withUnsafeBufferPointer { table in
                withUnsafeBytes(of: &raw) { source in
                    var position = 0
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: position, as: UInt8.self)
                            position += 1
                        }
                        text.storeBytes(of: table[Int(source[index])].littleEndian, toByteOffset: position, as: UInt16.self)
                        position += 2
                    }
                }
            }
            return try body(UnsafeRawBufferPointer(out))
        }
    }
}
