import Foundation

/// Writes RFC 4180 CSV (UTF-8, no BOM, CRLF line ends) to a file descriptor through a buffer,
/// in constant memory. A value type that cannot be copied (it owns its buffer): keep one in a
/// local `var` and pass it `inout`, so the hot path has no dynamic exclusivity checks.
///
/// A field is quoted when it contains a comma, a quote, CR or LF (quotes doubled). With
/// `formulaGuard` on, a text cell beginning with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
/// so spreadsheets do not run it as a formula (funnels.md "Formats"); numbers are never guarded.
///
/// ```swift
/// var writer = CSVWriter(descriptor: FileHandle.standardOutput.fileDescriptor, path: "-")
/// try writer.writeRow([.text("placement"), .text("presentations")])
/// try writer.writeRow([.text("=cmd"), .number("3")])   // '=cmd,3
/// try writer.flush()
/// ```
public struct CSVWriter: ~Copyable {
    /// One cell: text (quoted and formula-guarded as needed) or an already formatted number.
    public enum Cell: Sendable, Hashable {
        /// Data text.
        case text(String)
        /// A formatted number (or empty), written as is.
        case number(String)
        /// An empty cell.
        case empty

        /// The cell's text without CSV quoting or the formula guard (for the HTML page).
        public var raw: String {
            switch self {
            case .text(let text), .number(let text): return text
            case .empty: return ""
            }
        }
    }

    private let descriptor: Int32
    private let path: String
    private let formulaGuard: Bool
    /// The buffered bytes (a raw buffer, so the hot path has no `Array` uniqueness or growth
    /// checks per byte; the writer is not copyable, so nothing else owns it).
    private var buffer: OutputBuffer
    /// The buffer is written out once a record ends with at least this many bytes in it.
    private let capacity = 1 << 16
    private var fieldsInRecord = 0

    /// Creates a writer on an open file descriptor (not closed by the writer).
    ///
    /// - Parameters:
    ///   - descriptor: where to write.
    ///   - path: the path named in errors (`-` for standard output).
    ///   - formulaGuard: prefix formula-like text cells with `'` (default on; off for `--raw`).
    public init(descriptor: Int32, path: String, formulaGuard: Bool = true) {
        self.descriptor = descriptor
        self.path = path
        self.formulaGuard = formulaGuard
        buffer = OutputBuffer(bytes: capacity + 4096)
    }

    /// Appends one record.
    ///
    /// - Throws: ``ReportError/io(path:reason:)`` when the write fails.
    public mutating func writeRow(_ cells: [Cell]) throws {
        for cell in cells {
            switch cell {
            case .text(let value): text(value)
            case .number(let value): number(value)
            case .empty: empty()
            }
        }
        try endRecord()
    }

    /// Appends a text field (quoted and guarded as needed); `nil` writes an empty field.
    public mutating func text(_ value: String?) {
        guard var value else { return separate() }
        value.withUTF8 { text(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Appends a text field from UTF-8 bytes (quoted and guarded as needed), without a `String`.
    public mutating func text(bytes: UnsafeRawBufferPointer) {
        separate()
        guard let first = bytes.first else { return }
        let needsGuard =
            formulaGuard
            && (first == UInt8(ascii: "=") || first == UInt8(ascii: "+")
                || first == UInt8(ascii: "-") || first == UInt8(ascii: "@") || first == 9 || first == 13)
        let needsQuotes = Self.needsQuotes(bytes)
        if !needsQuotes && !needsGuard { return buffer.append(bytes) }
        buffer.reserve(2 * bytes.count + 3)
        if needsQuotes { buffer.put(UInt8(ascii: "\"")) }
        if needsGuard { buffer.put(UInt8(ascii: "'")) }
        for byte in bytes {
            buffer.put(byte)
            if needsQuotes && byte == UInt8(ascii: "\"") { buffer.put(byte) }
        }
        if needsQuotes { buffer.put(UInt8(ascii: "\"")) }
    }

    /// Whether a field of `bytes` must be quoted: it holds a comma, a quote, CR or LF.
    @inline(__always) private static func needsQuotes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Each of the four is at most `,` (44). Eight bytes at a time: a word none of whose bytes
        // is below 45 (ids, names, digits, letters) is passed with one test (the classic
        // "has a byte less than n" bit trick); a word with one is looked at byte by byte.
        var offset = 0
        if bytes.count >= 8, let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            while offset + 8 <= bytes.count {
                let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if (word &- ones &* 45) & ~word & (ones &* 0x80) != 0 { break }
                offset += 8
            }
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte <= UInt8(ascii: ","),
                byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 10 || byte == 13
            {
                return true
            }
            offset += 1
        }
        return false
    }

    /// Appends a field as is: for text the caller made and knows to need neither quotes nor the
    /// formula guard (an ISO 8601 time).
    mutating func verbatim(bytes: UnsafeRawBufferPointer) {
        separate()
        buffer.append(bytes)
    }

    /// Appends an integer field.
    public mutating func integer(_ value: Int64?) {
        separate()
        guard let value else { return }
        buffer.appendDigits(value)
    }

    /// Appends a float field as the shortest text that reads back as the same value (`12.5`,
    /// `0.1`), a whole number with `.0` (``Exporter/format(_:)``'s text).
    mutating func real(_ value: Double) {
        separate()
        if value == value.rounded() && abs(value) < 1e15 {
            buffer.appendDigits(Int64(value))
            buffer.reserve(2)
            buffer.put(UInt8(ascii: "."))
            buffer.put(UInt8(ascii: "0"))
        } else if abs(value) < 1e12, case let thousandths = (value * 1000).rounded(), thousandths / 1000 == value {
            // Design note: a value with at most three decimals (`open_s`, seconds to the
            // millisecond) is written from its integer thousandths, without `description` (which
            // cost a tenth of the export's formatting). Below 1e12 two such decimals are more than
            // a spacing of doubles apart, so the decimal that reads back as `value` with the fewest
            // digits is this one with its trailing zeros dropped: `description`'s text.
            let magnitude = Int64(thousandths).magnitude
            buffer.reserve(1)
            if value < 0 { buffer.put(UInt8(ascii: "-")) }
            buffer.appendDigits(Int64(magnitude / 1000))
            var fraction = magnitude % 1000
            var digits = 3
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            buffer.reserve(4)
            buffer.put(UInt8(ascii: "."))
            var at = buffer.count + digits
            buffer.count = at
            while digits > 0 {
                at -= 1
                buffer.base[at] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
                digits -= 1
            }
        } else {
            var text = value.description
            text.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Appends an already formatted number (never guarded or quoted).
    public mutating func number(_ formatted: String) {
        separate()
        var formatted = formatted
        formatted.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends an empty field.
    public mutating func empty() { separate() }

    /// Ends the current record (CRLF), flushing when the buffer is full.
    public mutating func endRecord() throws {
        buffer.reserve(2)
        buffer.put(13)
        buffer.put(10)
        fieldsInRecord = 0
        if buffer.count >= capacity { try flush() }
    }

    /// Writes the buffered bytes.
    ///
    /// - Throws: ``ReportError/io(path:reason:)``.
    public mutating func flush() throws {
        try buffer.write(to: descriptor, path: path)
    }

    @inline(__always) private mutating func separate() {
        if fieldsInRecord > 0 {
            buffer.reserve(1)
            buffer.put(UInt8(ascii: ","))
        }
        fieldsInRecord += 1
    }
}
