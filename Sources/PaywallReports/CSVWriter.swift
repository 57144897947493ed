import Foundation

/// Writes RFC 4180 CSV (UTF-8, no BOM, CRLF line ends) to a file descriptor through a buffer,
/// in constant memory.
///
/// A field is quoted when it contains a comma, a quote, CR or LF (quotes doubled). With
/// `formulaGuard` on, a text cell beginning with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
/// so spreadsheets do not run it as a formula (funnels.md "Formats"); numbers are never guarded.
///
/// ```swift
/// let writer = CSVWriter(descriptor: FileHandle.standardOutput.fileDescriptor, path: "-")
/// try writer.writeRow([.text("placement"), .text("presentations")])
/// try writer.writeRow([.text("=cmd"), .number("3")])   // '=cmd,3
/// try writer.flush()
/// ```
public final class CSVWriter {
    /// One cell: text (quoted and formula-guarded as needed) or an already formatted number.
    public enum Cell: Sendable, Hashable {
        /// Data text.
        case text(String)
        /// A formatted number (or empty), written as is.
        case number(String)
        /// An empty cell.
        case empty
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
    public func writeRow(_ cells: [Cell]) throws {
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
    public func text(_ value: String?) {
        separate()
        if let value { appendText(value) }
    }

    /// Appends an integer field.
    public func integer(_ value: Int64?) {
        separate()
        guard var value else { return }
        if value < 0 {
            buffer.append(UInt8(ascii: "-"))
            if value == .min { buffer.append(contentsOf: "9223372036854775808".utf8); return }
            value = -value
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
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
    public func number(_ formatted: String) {
        separate()
        buffer.append(contentsOf: formatted.utf8)
    }

    /// Appends an empty field.
    public func empty() { separate() }

    /// Ends the current record (CRLF), flushing when the buffer is full.
    public func endRecord() throws {
        buffer.append(13)
        buffer.append(10)
        fieldsInRecord = 0
        if buffer.count >= capacity { try flush() }
    }

    private func separate() {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
    }

    /// Appends one text field, guarded and quoted as needed.
    func appendText(_ text: String) {
        let utf8 = text.utf8
        var needsGuard = false
        if formulaGuard, let first = utf8.first {
            needsGuard = first == UInt8(ascii: "=") || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
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
    public func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        try buffer.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
    }
}
