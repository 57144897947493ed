import CSQLite

extension Statement {
    /// Binds raw bytes as a blob without an intermediate `Data` (hot loops). SQLite copies the bytes.
    public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        // A zero-length blob still needs a non-NULL pointer, or SQLite binds NULL.
        let empty: StaticString = ""
        let base = bytes.count > 0 ? bytes.baseAddress! : UnsafeRawPointer(empty.utf8Start)
        sqlite3_bind_blob(handle, Int32(index), base, Int32(bytes.count), sqliteTransient)
    }
}

extension Row {
    /// Calls `body` with column `index`'s blob bytes without copying them; the buffer is valid only
    /// during the call. An empty buffer for `NULL` or an empty blob.
    public func withUnsafeBlob<T>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let blob = sqlite3_column_blob(handle, Int32(index))
        let length = Int(sqlite3_column_bytes(handle, Int32(index)))
        return try body(UnsafeRawBufferPointer(start: blob, count: blob == nil ? 0 : length))
    }
}
