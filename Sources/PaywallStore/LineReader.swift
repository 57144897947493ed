import PaywallCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Splits a file descriptor's bytes into lines, reading fixed-size chunks: memory stays bounded by
/// the chunk size plus the line limit, however large the file. A line longer than the limit is
/// reported as oversized (its first bytes, its length and the SHA-256 of all its bytes) without
/// being buffered whole.
///
/// The limit applies to a line's content, without its terminator (`\n` or `\r\n`): a line of
/// exactly the limit is a line whether it ends in LF or CRLF. A UTF-8 byte-order mark (EF BB BF) at
/// the very start of the input is skipped (a mark anywhere else is data).
struct LineReader {
    /// One line: its bytes (valid only during the callback; a trailing `\r` still there) or, when
    /// too long, a prefix, the content's length and the SHA-256 of the content.
    enum Line {
        case text(UnsafeRawBufferPointer, number: Int)
        case oversized(prefix: [UInt8], length: Int, digest: [UInt8], number: Int)
    }

    /// How many leading bytes of an oversized line are kept for the quarantine.
    static let oversizedPrefix = 512
    /// The UTF-8 byte-order mark.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

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

    /// A line past the limit, hashed as it streams by. The last byte fed is held back until the
    /// line ends: a `\r` there belongs to the terminator, not to the content.
    struct Oversized {
        var prefix: [UInt8] = []
        var length = 0
        var hash = SHA256()
        var held: UInt8?

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            guard let last = bytes.last else { return }
            if prefix.count < LineReader.oversizedPrefix {
                prefix += bytes.prefix(LineReader.oversizedPrefix - prefix.count)
            }
            if let held { hash.update([held]) }
            hash.update(UnsafeRawBufferPointer(rebasing: bytes.dropLast()))
            held = last
            length += bytes.count
        }

        mutating func finish(number: Int) -> Line {
            if let held, held != 0x0D { hash.update([held]) } else if held == 0x0D { length -= 1 }
            return .oversized(
                prefix: Array(prefix.prefix(length)), length: length, digest: hash.finalize(), number: number)
        }
    }

    /// Calls `body` for every line (without its `\n`), then `afterChunk` after each chunk.
    mutating func forEachLine(_ body: (Line) throws -> Void, afterChunk: (Int64) throws -> Void = { _ in }) throws {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { chunk.deallocate() }
        var carry: [UInt8] = []
        var oversized: Oversized?
        var number = 0
        var markPending = true
        var markMatched = 0
        // Room for the content at the limit plus the `\r` of a CRLF terminator.
        let bufferLimit = maxLineBytes + 1
        func finish(_ bytes: UnsafeRawBufferPointer, number: Int) throws {
            if var long = oversized {
                oversized = nil
                try body(long.finish(number: number))
            } else if bytes.count == bufferLimit, bytes.last != 0x0D {
                var long = Oversized()
                long.add(bytes)
                try body(long.finish(number: number))
            } else {
                try body(.text(bytes, number: number))
            }
        }
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
            while markPending, start < count {  // a byte-order mark at the very start, maybe split across reads
                if chunk[start] == Self.byteOrderMark[markMatched] {
                    markMatched += 1
                    start += 1
                    if markMatched == Self.byteOrderMark.count { markPending = false }
                } else {
                    markPending = false
                    carry.append(contentsOf: Self.byteOrderMark[..<markMatched])
                }
            }
            while start < count {
                let found = memchr(base + start, 0x0A, count - start)
                let end = found.map { base.distance(to: $0) } ?? count
                let segment = UnsafeRawBufferPointer(start: base + start, count: end - start)
                if oversized != nil {
                    oversized!.add(segment)
                } else if carry.count + segment.count > bufferLimit {
                    var long = Oversized()
                    carry.withUnsafeBytes { long.add($0) }
                    long.add(segment)
                    oversized = long
                    carry.removeAll(keepingCapacity: true)
                } else if found == nil || !carry.isEmpty {
                    carry.append(contentsOf: segment)
                }
                if found != nil {
                    number += 1
                    if carry.isEmpty {
                        try finish(segment, number: number)
                    } else {
                        try carry.withUnsafeBytes { try finish($0, number: number) }
                        carry.removeAll(keepingCapacity: true)
                    }
                }
                start = end + 1
            }
            try afterChunk(bytesRead)
        }
        if markPending { carry.append(contentsOf: Self.byteOrderMark[..<markMatched]) }
        if oversized != nil || !carry.isEmpty {
            try carry.withUnsafeBytes { try finish($0, number: number + 1) }
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
