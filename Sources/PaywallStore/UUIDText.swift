import Foundation

/// Writes a UUID's uppercase canonical text (`uuidString` form) into a stack buffer, without
/// allocating a `String`: the recorder's hot loop binds ids this way.
enum UUIDText {
    /// 36 bytes on the stack.
    private typealias Text = (UInt64, UInt64, UInt64, UInt64, UInt32)

    /// Calls `body` with the 36 bytes of `uuid`'s uppercase canonical text.
    @inline(__always)
    static func withCanonical<R>(_ uuid: UUID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var text: Text = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { out in
            withUnsafeBytes(of: uuid.uuid) { source in
                var position = 0
                for index in 0..<16 {
                    // Dashes after bytes 4, 6, 8 and 10 (8-4-4-4-12 hex digits).
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = 0x2D
                        position += 1
                    }
                    let byte = source[index]
                    out[position] = hex(byte >> 4)
                    out[position + 1] = hex(byte & 0x0F)
                    position += 2
                }
            }
        }
        return try withUnsafeBytes(of: &text) { try body($0) }
    }

    /// The uppercase hex digit of a nibble, without a table lookup.
    @inline(__always)
    private static func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }
}
