import Foundation

/// Writes a UUID's uppercase canonical text (`uuidString` form) into a stack buffer, without
/// allocating a `String`: the recorder's hot loop binds ids this way.
enum UUIDText {
    private static let digits: StaticString = "0123456789ABCDEF"

    /// Calls `body` with the 36 bytes of `uuid`'s uppercase canonical text.
    static func withCanonical<R>(_ uuid: UUID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = uuid.uuid
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            withUnsafeBytes(of: &raw) { source in
                let hex = digits.utf8Start
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let byte = source[index]
                    out[position] = hex[Int(byte >> 4)]
                    out[position + 1] = hex[Int(byte & 0x0F)]
                    position += 2
                }
            }
            return try body(UnsafeRawBufferPointer(out))
        }
    }
}
