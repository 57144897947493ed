import Foundation

/// Writes RFC 4180 CSV (UTF-8, no BOM, CRLF line ends) to a file descriptor through a buffer,
/// in constant memory. A value type: keep one in a local `var` and pass it `inout`, so the hot
/// path has no dynamic exclusivity checks.
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
public struct CSVWriter {
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
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16

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
        buffer.reserveCapacity(capacity + 4096)
    }

    private var fieldsInRecord = 0

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
        separate()
        if let value { appendText(value) }
    }

    /// Appends a text field from UTF-8 bytes (quoted and guarded as needed), without a `String`.
    public mutating func text(bytes: UnsafeRawBufferPointer) {
        separate()
        guard let first = bytes.first else { return }
        let needsGuard =
            formulaGuard
            && (first == UInt8(ascii: "=") || first == UInt8(ascii: "+")
                || first == UInt8(ascii: "-") || first == UInt8(ascii: "@") || first == 9 || first == 13)
        var needsQuotes = false
        for byte in bytes where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 10 || byte == 13 {
            needsQuotes = true
            break
        }
        if !needsQuotes && !needsGuard {
            buffer.append(contentsOf: bytes)
            return
        }
        if needsQuotes { buffer.append(UInt8(ascii: "\"")) }
        if needsGuard { buffer.append(UInt8(ascii: "'")) }
        for byte in bytes {
            buffer.append(byte)
            if needsQuotes && byte == UInt8(ascii: "\"") { buffer.append(byte) }
        }
        if needsQuotes { buffer.append(UInt8(ascii: "\"")) }
    }

    /// Appends an integer field.
    public mutating func integer(_ value: Int64?) {
        separate()
        guard var value else { return }
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
            if value == .min {
                buffer.append(contentsOf: "9223372036854775808".utf8)
                return
            }
            value = -value
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[19 - count] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                count += 1
            } while value > 0
            buffer.append(contentsOf: raw[(20 - count)...])
        }
    }

    /// Appends an already formatted number (never guarded or quoted).
    public mutating func number(_ formatted: String) {
        separate()
        buffer.append(contentsOf: formatted.utf8)
    }

    /// Appends an empty field.
    public mutating func empty() { separate() }

    /// Ends the current record (CRLF), flushing when the buffer is full.
    public mutating func endRecord() throws {
        buffer.append(13)
        buffer.append(10)
        fieldsInRecord = 0
        if buffer.count >= capacity { try flush() }
    }

    private mutating func separate() {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
    }

    /// Appends one text field, guarded and quoted as needed.
    mutating func appendText(_ text: String) {
        let utf8 = text.utf8
        var needsGuard = false
        if formulaGuard, let first = utf8.first {
            needsGuard =
                first == UInt8(ascii: "=") || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
                || first == UInt8(ascii: "@") || first == 9 || first == 13
        }
        let needsQuotes = utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        if needsQuotes { buffer.append(UInt8(ascii: "\"")) }
        if needsGuard { buffer.append(UInt8(ascii: "'")) }
        if needsQuotes {
            for byte in utf8 {
                buffer.append(byte)
                if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            }
        } else {
            buffer.append(contentsOf: utf8)
        }
        if needsQuotes { buffer.append(UInt8(ascii: "\"")) }
    }

    /// Writes the buffered bytes.
    ///
    /// - Throws: ``ReportError/io(path:reason:)``.
    public mutating func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
    }
}
