import CSQLite

/// The storage class of a column value in the current row.
public enum ColumnType: Sendable, Equatable {
    /// `INTEGER`.
    case integer
    /// `REAL`.
    case real
    /// `TEXT`.
    case text
    /// `BLOB`.
    case blob
    /// `NULL`.
    case null
}

extension Row {
    /// The storage class of column `index`.
    @inlinable public func type(at index: Int) -> ColumnType {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// Calls `body` with column `index`'s UTF-8 bytes without copying them (for streaming exports);
    /// the buffer is valid only during the call. An empty buffer for `NULL`.
    public func withUnsafeText<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let text = sqlite3_column_text(handle, Int32(index))
        let length = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(
            UnsafeRawBufferPointer(start: text.map { UnsafeRawPointer($0) }, count: text == nil ? 0 : length))
    }

    /// Calls `body` with column `index`'s UTF-8 bytes without copying them, `nil` for `NULL`: one
    /// text call and one length call, no type call (a value of another type is given as SQLite's
    /// text of it: an integer's digits, a blob's bytes). For streaming columns declared `TEXT`.
    @inlinable public func withUnsafeTextOrNil<T>(
        at index: Int, _ body: (UnsafeRawBufferPointer?) throws -> T
    ) rethrows -> T {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return try body(nil) }
        return try body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, Int32(index)))))
    }

    /// The type column `index` was declared with in its table (`TEXT`, `INTEGER`), `nil` for an
    /// expression.
    public func declaredType(at index: Int) -> String? {
        sqlite3_column_decltype(handle, Int32(index)).map { String(cString: $0) }
    }

    /// Calls `body` with column `index`'s bytes as a BLOB without copying them; the buffer is valid
    /// only during the call. An empty buffer for `NULL` or an empty blob.
    public func withUnsafeBlob<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let blob = sqlite3_column_blob(handle, Int32(index))
        let length = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : length))
    }
}
