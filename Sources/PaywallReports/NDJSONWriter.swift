/// Writes JSON lines into a raw buffer, written to a descriptor once a line ends with at least
/// 64 KiB buffered (the events export's NDJSON form, ``Exporter``).
///
/// Strings are escaped as SQLite's `json_object` escapes them, so the export's bytes are those the
/// SQL form gave before (tested against it): `"` and `\` get a backslash; of the bytes below 0x20,
/// backspace, tab, newline, form feed and carriage return are written `\b`, `\t`, `\n`, `\f`, `\r`
/// and the others `\u00XX` (lowercase hex); every other byte, UTF-8 included, is written as it is.
struct NDJSONWriter: ~Copyable {
    private let descriptor: Int32
    private let path: String
    private var buffer: OutputBuffer
    /// The buffer is written out once a line ends with at least this many bytes in it.
    private let capacity = 1 << 16

    /// Creates a writer on an open file descriptor (not closed by the writer); `path` names it in errors.
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        buffer = OutputBuffer(bytes: capacity + 4_096)
    }

    /// Appends `bytes` as they are.
    mutating func raw(_ bytes: UnsafeRawBufferPointer) { buffer.append(bytes) }

    /// Appends one byte.
    mutating func byte(_ value: UInt8) {
        buffer.reserve(1)
        buffer.put(value)
    }

    /// Appends an integer's decimal digits.
    mutating func integer(_ value: Int64) { buffer.appendDigits(value) }

    /// Appends `bytes` as a JSON string: quoted, escaped as the type's doc says.
    mutating func string(_ bytes: UnsafeRawBufferPointer) {
        // At most six bytes per input byte (`\u00XX`) and the two quotes.
        buffer.reserve(6 * bytes.count + 2)
        buffer.put(UInt8(ascii: "\""))
        for byte in bytes {
            if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                buffer.put(byte)
                continue
            }
            buffer.put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.put(byte)
            case 0x08: buffer.put(UInt8(ascii: "b"))
            case 0x09: buffer.put(UInt8(ascii: "t"))
            case 0x0A: buffer.put(UInt8(ascii: "n"))
            case 0x0C: buffer.put(UInt8(ascii: "f"))
            case 0x0D: buffer.put(UInt8(ascii: "r"))
            default:
                let hex: StaticString = "0123456789abcdef"
                buffer.put(UInt8(ascii: "u"))
                buffer.put(UInt8(ascii: "0"))
                buffer.put(UInt8(ascii: "0"))
                buffer.put(UInt8(ascii: "0") + byte >> 4)
                buffer.put(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        buffer.put(UInt8(ascii: "\""))
    }

    /// Ends the line (`\n`), writing the buffer out when it is full.
    ///
    /// - Throws: ``ReportError/io(path:reason:)``.
    mutating func endLine() throws {
        byte(10)
        if buffer.count >= capacity { try flush() }
    }

    /// Writes the buffered bytes.
    ///
    /// - Throws: ``ReportError/io(path:reason:)``.
    mutating func flush() throws { try buffer.write(to: descriptor, path: path) }
}
