import PaywallCore
import PaywallSQLite

/// The rows of a table export in transit from the reading thread to the formatting one
/// (``Exporter``): each column as a tag byte and its value, then the row's delivery state when the
/// export has one.
///
/// Design note: a single thread spent about as long in SQLite (stepping, the column calls) as in
/// formatting CSV, so the export reads on one thread and formats on the other. The reader copies
/// each row's values into 256 KiB chunks in this compact form (raw stores into one reused buffer: no
/// `String`, no per-value array growth, which cost a sixth of the reader's time with `append`); the
/// formatter turns a chunk into CSV (or JSON lines, ``writeNDJSON(_:members:into:)``) while the
/// reader fills the next. 10M events: 0.95 → 1.86 × `sqlite3 -csv` (`paywall-bench report`, quiet
/// machine).
///
/// The events export now reads on two threads (``ExportSplitRead``): once a `TEXT` column took one
/// SQLite call and the CSV writer no `Array` checks, the one reader set the pace. Tried first with
/// this code before those changes, the same split had been a loss (1M events, 8 alternated pairs:
/// wall 1.12×, CPU 1.09×), as one reader and the formatter already kept about 1.6 of the 2 cores
/// busy. Readers that also formatted their own ranges cost 10 % more CPU still (SQLite's stepping
/// and the formatting then share one core's caches), so formatting stays on one thread.
enum ExportRowChunk {
    /// A chunk is handed over once it holds this many bytes.
    static let bytes = 1 << 18

    /// Tags of the encoded values.
    enum Tag: UInt8 {
        case empty = 0
        case integer
        case real
        case text
    }

    /// Encodes rows into one reused buffer (raw stores, no `Array` growth checks per value) and
    /// hands each full chunk over as an array.
    final class Builder {
        private var base: UnsafeMutableRawPointer
        private var capacity: Int
        /// Bytes encoded since the last ``take()``.
        private(set) var count = 0
        /// Per column: declared `TEXT`, so read with one text call and no type call.
        private let textual: [Bool]

        /// A builder for rows whose columns are `TEXT` where `textual` says so (``textualColumns(of:count:)``).
        init(textual: [Bool]) {
            self.textual = textual
            capacity = ExportRowChunk.bytes + (1 << 16)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }

        deinit { base.deallocate() }

        /// Makes room for `more` bytes.
        @inline(__always) private func reserve(_ more: Int) {
            guard count + more > capacity else { return }
            grow(more)
        }

        private func grow(_ more: Int) {
            let grown = max(capacity * 2, count + more)
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
            larger.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = larger
            capacity = grown
        }

        @inline(__always) private func put(_ byte: UInt8) {
            base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
            count += 1
        }

        @inline(__always) private func putText(_ text: UnsafeRawBufferPointer) {
            reserve(5 + text.count)
            put(Tag.text.rawValue)
            base.storeBytes(of: UInt32(text.count).littleEndian, toByteOffset: count, as: UInt32.self)
            count += 4
            if let source = text.baseAddress {
                (base + count).copyMemory(from: source, byteCount: text.count)
            }
            count += text.count
        }

        /// Appends the values of `row`'s first ``textual`` columns, then `state` when given.
        ///
        /// Design note: a column declared `TEXT` is read with `sqlite3_column_text` alone (`NULL`
        /// for `NULL`), without first asking its type. The store's tables are `STRICT`, so such a
        /// column holds text or `NULL`; in a table that is not, another type would be written as
        /// SQLite's text of it, as `sqlite3 -csv` writes it. The type calls were 7 % of the
        /// export's CPU at 1M events. Tried and dropped: one `sqlite3_column_value` per column and
        /// the value's text and length from it (the column calls' checks once per column instead of
        /// twice; allowed on this package's `SQLITE_OPEN_NOMUTEX` connections): eight alternated
        /// pairs of the 10M export, whole process, gave wall 1.05× and CPU 1.05× (medians).
        func append(_ row: Row, state: ExportedDeliveryState?) {
            for index in textual.indices {
                if textual[index] {
                    row.withUnsafeTextOrNil(at: index) { text in
                        if let text {
                            putText(text)
                        } else {
                            reserve(1)
                            put(Tag.empty.rawValue)
                        }
                    }
                    continue
                }
                switch row.type(at: index) {
                case .integer:
                    reserve(9)
                    put(Tag.integer.rawValue)
                    base.storeBytes(of: row.int64(at: index).littleEndian, toByteOffset: count, as: Int64.self)
                    count += 8
                case .real:
                    reserve(9)
                    put(Tag.real.rawValue)
                    let bits = row.plainDouble(at: index).bitPattern.littleEndian
                    base.storeBytes(of: bits, toByteOffset: count, as: UInt64.self)
                    count += 8
                case .text:
                    row.withUnsafeText(at: index) { putText($0) }
                case .blob, .null:
                    reserve(1)
                    put(Tag.empty.rawValue)
                }
            }
            if let state {
                reserve(1)
                put(state.rawValue)
            }
        }

        /// The bytes encoded since the last call, as one chunk; the buffer starts over.
        func take() -> [UInt8] {
            defer { count = 0 }
            return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
        }

        /// Replaces the contents of `chunk` (an array handed back to be used again, keeping its
        /// memory) with the bytes encoded since the last call; the buffer starts over.
        func take(into chunk: inout [UInt8]) {
            chunk.removeAll(keepingCapacity: true)
            chunk.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
            count = 0
        }
    }

    /// Which of the first `count` result columns of `statement` are declared `TEXT` in their table
    /// (``Builder``'s one-call read).
    static func textualColumns(of statement: Statement, count: Int) -> [Bool] {
        (0..<count).map { statement.row.declaredType(at: $0)?.uppercased() == "TEXT" }
    }

    /// Writes every row of `chunk` (encoded with the same `columns` and delivery state presence);
    /// returns the rows written. A column whose `iso` flag is set (Unix milliseconds) is followed by a
    /// column of the same time as ISO 8601 UTC text (``ISOTimestamp``; empty when the time is).
    static func write(
        _ chunk: [UInt8], columns: Int, withState: Bool, iso: [Bool] = [], into writer: inout CSVWriter
    ) throws -> Int64 {
        var rows: Int64 = 0
        var isoWriter = ISOTimestamp.Writer()
        try chunk.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                for column in 0..<columns {
                    let tag = Tag(rawValue: raw[offset]) ?? .empty
                    offset += 1
                    let withISO = column < iso.count && iso[column]
                    switch tag {
                    case .integer:
                        let value = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                        writer.integer(value)
                        offset += 8
                        if withISO, !isoWriter.write(value, to: { writer.verbatim(bytes: $0) }) {
                            writer.empty()
                        }
                        continue
                    case .real:
                        let bits = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                        writer.real(Double(bitPattern: bits))
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
                    if withISO { writer.empty() }  // a time stored as another type has no ISO text
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
