/// The bytes a writer has formatted and not yet written (``CSVWriter``, ``NDJSONWriter``): a raw
/// buffer, so the hot paths store bytes without `Array`'s checks. Room is reserved first
/// (``reserve(_:)``), then bytes are put.
struct OutputBuffer: ~Copyable {
    /// The buffer's start.
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// The bytes held, from ``base``.
    var count = 0
    /// The bytes the buffer has room for.
    private var allocated: Int

    /// An empty buffer with room for `bytes`.
    init(bytes: Int) {
        allocated = bytes
        base = .allocate(capacity: bytes)
    }

    deinit { base.deallocate() }

    /// Makes room for `more` bytes after the held ones.
    @inline(__always) mutating func reserve(_ more: Int) {
        if count + more > allocated { grow(more) }
    }

    private mutating func grow(_ more: Int) {
        let size = max(2 * allocated, count + more)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        allocated = size
    }

    /// Stores one byte; room for it was reserved.
    @inline(__always) mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// Appends `bytes` (room is made).
    @inline(__always) mutating func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let source = bytes.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends the decimal digits of `value` (a leading `-` when negative; room is made).
    mutating func appendDigits(_ value: Int64) {
        reserve(41)
        if value < 0 { put(UInt8(ascii: "-")) }
        // Written backwards after room for 20, then moved into place: one division per digit.
        var magnitude = value.magnitude
        let end = count + 40
        var at = end
        repeat {
            at -= 1
            base[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        let digits = end - at
        (base + count).update(from: base + at, count: digits)
        count += digits
    }

    /// Writes the held bytes to `descriptor` and empties the buffer (emptied on failure too).
    ///
    /// - Throws: ``ReportError/io(path:reason:)``.
    mutating func write(to descriptor: Int32, path: String) throws {
        defer { count = 0 }
        try FileIO.writeAll(descriptor, UnsafeRawBufferPointer(start: base, count: count), path: path)
    }
}
