import PaywallSQLite

/// The rows of a table export in transit from the reading thread to the formatting one
/// (``Exporter``): each column as a tag byte and its value, then the row's delivery state when the
/// export has one.
///
/// Design note: a single thread spent about as long in SQLite (stepping, the column calls) as in
/// formatting CSV, so the export reads on one thread and formats on the other. The reader copies
/// each row's values into 256 KiB chunks in this compact form (no `String`, no per-row allocation);
/// the formatter turns a chunk into CSV while the reader fills the next.
enum ExportRowChunk {
    /// A chunk is handed over once it holds this many bytes.
    static let bytes = 1 << 18

    /// Tags of the encoded values.
    private enum Tag: UInt8 {
        case empty = 0
        case integer
        case real
        case text
    }

    /// Appends `columns` values of `row`, then `state` when given.
    static func append(_ row: Row, columns: Int, state: ExportedDeliveryState?, to chunk: inout [UInt8]) {
        for index in 0..<columns {
            switch row.type(at: index) {
            case .integer:
                chunk.append(Tag.integer.rawValue)
                withUnsafeBytes(of: row.int64(at: index).littleEndian) { chunk.append(contentsOf: $0) }
            case .real:
                chunk.append(Tag.real.rawValue)
                withUnsafeBytes(of: (row.double(at: index) ?? 0).bitPattern.littleEndian) {
                    chunk.append(contentsOf: $0)
                }
            case .text:
                chunk.append(Tag.text.rawValue)
                row.withUnsafeText(at: index) { text in
                    withUnsafeBytes(of: UInt32(text.count).littleEndian) { chunk.append(contentsOf: $0) }
                    chunk.append(contentsOf: text)
                }
            case .blob, .null:
                chunk.append(Tag.empty.rawValue)
            }
        }
        if let state { chunk.append(state.rawValue) }
    }

    /// Writes every row of `chunk` (encoded with the same `columns` and delivery state presence);
    /// returns the rows written.
    static func write(
        _ chunk: [UInt8], columns: Int, withState: Bool, into writer: inout CSVWriter
    ) throws -> Int64 {
        var rows: Int64 = 0
        try chunk.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                for _ in 0..<columns {
                    let tag = Tag(rawValue: raw[offset]) ?? .empty
                    offset += 1
                    switch tag {
                    case .integer:
                        writer.integer(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                        offset += 8
                    case .real:
                        let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                        writer.number(Exporter.format(Double(bitPattern: bits)))
                        offset += 8
                    case .text:
                        let count = Int(
                            UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                        offset += 4
                        writer.text(bytes: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                        offset += count
                    case .empty:
                        writer.empty()
                    }
                }
                if withState {
                    let state = ExportedDeliveryState(rawValue: raw[offset]) ?? .none
                    offset += 1
                    if let text = state.text { writer.text(text) } else { writer.empty() }
                }
                try writer.endRecord()
                rows += 1
            }
        }
        return rows
    }
}
