import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Low-level file writing shared by the CSV writer and the output folder.
enum FileIO {
    /// Writes every byte of `bytes` to `descriptor`, retrying on `EINTR`.
    ///
    /// - Throws: ``ReportError/io(path:reason:)`` naming `path`.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ReportError.io(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}
