#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits a file descriptor's bytes into lines, reading fixed-size chunks: memory stays bounded by
/// the chunk size plus the line limit, however large the file. A line longer than the limit is
/// reported as oversized (its first bytes and its length) without being buffered whole.
struct LineReader {
    /// One line: its bytes (valid only during the callback) or, when too long, a prefix and the length.
    enum Line {
        case text(UnsafeRawBufferPointer, number: Int)
        case oversized(prefix: [UInt8], length: Int, number: Int)
    }

    /// How many leading bytes of an oversized line are kept for the quarantine.
    static let oversizedPrefix = 512

    let descriptor: Int32
    let path: String
    let chunkBytes: Int
    let maxLineBytes: Int
    private(set) var bytesRead: Int64 = 0
    /// Bytes already read from `descriptor` by the caller (the format sniff), taken before it is read.
    private var pending: [UInt8]

    init(descriptor: Int32, path: String, chunkBytes: Int, maxLineBytes: Int, alreadyRead: [UInt8] = []) {
        self.descriptor = descriptor
        pending = alreadyRead
        self.path = path
        self.chunkBytes = chunkBytes
        self.maxLineBytes = maxLineBytes
    }

    /// Calls `body` for every line (without its `\n`), then `afterChunk` after each chunk.
    mutating func forEachLine(_ body: (Line) throws -> Void, afterChunk: (Int64) throws -> Void = { _ in }) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { chunk.deallocate() }
        var carry: [UInt8] = []
        var oversized: (prefix: [UInt8], length: Int)?
        var number = 0
        while true {
            let count = pending.isEmpty ? read(descriptor, chunk.baseAddress, chunkBytes) : takePending(into: chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw ImportError(.unreadable, path: path, detail: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytesRead += Int64(count)
            var start = 0
            let base = chunk.baseAddress!
            while start < count {
                let found = memchr(base + start, 0x0A, count - start)
                let end = found.map { base.distance(to: $0) } ?? count
                let segment = UnsafeRawBufferPointer(start: base + start, count: end - start)
                if var long = oversized {
                    long.length += segment.count
                    oversized = long
                } else if carry.count + segment.count > maxLineBytes {
                    var prefix = Array(carry.prefix(Self.oversizedPrefix))
                    prefix += segment.prefix(Self.oversizedPrefix - prefix.count)
                    oversized = (prefix, carry.count + segment.count)
                    carry.removeAll(keepingCapacity: true)
                } else if found == nil || !carry.isEmpty {
                    carry.append(contentsOf: segment)
                }
                if found != nil {
                    number += 1
                    if let long = oversized {
                        try body(.oversized(prefix: long.prefix, length: long.length, number: number))
                        oversized = nil
                    } else if carry.isEmpty {
                        try body(.text(segment, number: number))
                    } else {
                        try carry.withUnsafeBytes { try body(.text($0, number: number)) }
                        carry.removeAll(keepingCapacity: true)
                    }
                }
                start = end + 1
            }
            try afterChunk(bytesRead)
        }
        if let long = oversized {
            try body(.oversized(prefix: long.prefix, length: long.length, number: number + 1))
        } else if !carry.isEmpty {
            try carry.withUnsafeBytes { try body(.text($0, number: number + 1)) }
        }
    }

    /// Copies the bytes the caller read ahead into `chunk` (as many as fit) and returns their count.
    private mutating func takePending(into chunk: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(pending.count, chunk.count)
        pending.withUnsafeBytes { chunk.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
        pending.removeFirst(count)
        return count
    }
}
