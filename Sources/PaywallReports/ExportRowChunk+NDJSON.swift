extension ExportRowChunk {
    /// The members of an NDJSON line: per encoded column, its `"name":` bytes, and which column's
    /// text is already a JSON number, written without quotes (``Exporter``'s `open_s`).
    struct JSONMembers {
        /// `"name":` per column, in the chunk's column order.
        let prefixes: [[UInt8]]
        /// The column whose text is a JSON number.
        let numberColumn: Int

        /// Members named `names`, the one at `numberColumn` written as a number.
        init(names: [String], numberColumn: Int) {
            prefixes = names.map { Array("\"\($0)\":".utf8) }
            self.numberColumn = numberColumn
        }
    }

    /// Writes every row of `chunk` (encoded with `members.prefixes.count` columns and no delivery
    /// state) as one JSON object per line, its members in column order, a `NULL` column left out,
    /// as SQLite's `json_patch('{}', json_object(…))` writes them; returns the rows written.
    ///
    /// A `REAL` column is written with Swift's shortest text of it (the export selects `open_s`,
    /// its only one, as SQLite's `printf('%!.17g')` text instead, the numbers the SQL form gave).
    static func writeNDJSON(_ chunk: [UInt8], members: JSONMembers, into writer: inout NDJSONWriter) throws -> Int64 {
        var rows: Int64 = 0
        let columns = members.prefixes.count
        try chunk.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                writer.byte(UInt8(ascii: "{"))
                var first = true
                for column in 0..<columns {
                    let tag = Tag(rawValue: raw[offset]) ?? .empty
                    offset += 1
                    if tag == .empty { continue }
                    if !first { writer.byte(UInt8(ascii: ",")) }
                    first = false
                    members.prefixes[column].withUnsafeBytes { writer.raw($0) }
                    switch tag {
                    case .integer:
                        writer.integer(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                        offset += 8
                    case .real:
                        let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                        Array("\(Double(bitPattern: bits))".utf8).withUnsafeBytes { writer.raw($0) }
                        offset += 8
                    case .text:
                        let count = Int(
                            UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                        offset += 4
                        let text = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)])
                        if column == members.numberColumn { writer.raw(text) } else { writer.string(text) }
                        offset += count
                    case .empty:
                        break
                    }
                }
                writer.byte(UInt8(ascii: "}"))
                try writer.endLine()
                rows += 1
            }
        }
        return rows
    }
}
