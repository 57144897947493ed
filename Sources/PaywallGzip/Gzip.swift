import CZlib
import Foundation

/// gzip through the system zlib: inflating a request body with a cap on its decompressed size
/// (which is what stops a gzip bomb: inflation stops at the cap, never allocating past it), and
/// deflating (the uploader compresses its batches with it; tests and the benchmark build gzip bodies).
public enum Gzip {
    /// Why a body could not be inflated.
    public enum Failure: Error, Sendable, Hashable {
        /// The decompressed body would pass the cap.
        case tooLarge
        /// Not gzip, damaged, or cut short.
        case malformed
    }

    /// Inflates the gzip data `input` (one member or several back to back).
    ///
    /// - Parameter limit: the most decompressed bytes allowed.
    /// - Throws: ``Failure``.
    public static func inflate(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        guard !input.isEmpty else { throw .malformed }
        var stream = z_stream()
        guard czlib_inflate_init(&stream, 15 + 16) == Z_OK else { throw .malformed }
        defer { inflateEnd(&stream) }
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var offset = 0
        let failure: Failure? = input.withUnsafeBufferPointer { source -> Failure? in
            while offset < source.count {
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress! + offset)
                stream.avail_in = UInt32(source.count - offset)
                var status: Int32 = Z_OK
                repeat {
                    status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                        stream.next_out = buffer.baseAddress
                        stream.avail_out = UInt32(buffer.count)
                        return CZlib.inflate(&stream, Z_NO_FLUSH)
                    }
                    guard status == Z_OK || status == Z_STREAM_END else { return .malformed }
                    let produced = chunk.count - Int(stream.avail_out)
                    if output.count + produced > limit { return .tooLarge }
                    output.append(contentsOf: chunk[0..<produced])
                    if status == Z_OK, stream.avail_in == 0, produced == 0 { return .malformed }
                } while status != Z_STREAM_END
                offset = source.count - Int(stream.avail_in)
                if offset < source.count, inflateReset(&stream) != Z_OK { return .malformed }
            }
            return nil
        }
        if let failure { throw failure }
        return output
    }

    /// Compresses `input` as one gzip member.
    public static func deflate(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            var status: Int32 = Z_OK
            repeat {
                status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return CZlib.deflate(&stream, Z_FINISH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
            } while status == Z_OK
        }
        return output
    }
}
