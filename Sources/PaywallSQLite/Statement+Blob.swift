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

extension Statement {
    /// Binds UTF-8 bytes as text without copying them (SQLite's `SQLITE_STATIC`), for hot loops
    /// that bind many texts kept elsewhere. The caller keeps the bytes valid and unchanged until
    /// the statement has run and the parameter is bound again or ``clearBindings()`` is called.
    public func bindTextNoCopy(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        let empty: StaticString = ""
        let base = bytes.count > 0 ? bytes.baseAddress! : UnsafeRawPointer(empty.utf8Start)
        sqlite3_bind_text(handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
    }

    /// Binds bytes as a blob without copying them (SQLite's `SQLITE_STATIC`), under the same
    /// promise as ``bindTextNoCopy(_:at:)``.
    public func bindBlobNoCopy(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        let empty: StaticString = ""
        let base = bytes.count > 0 ? bytes.baseAddress! : UnsafeRawPointer(empty.utf8Start)
        sqlite3_bind_blob(handle, Int32(index), base, Int32(bytes.count), nil)
    }
}
