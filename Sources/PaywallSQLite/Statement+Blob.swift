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
