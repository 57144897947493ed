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
    /// Binds `count` bytes at `pointer` as a blob that SQLite reads in place, without a copy.
    ///
    /// The caller keeps the bytes alive and unchanged until the parameter is bound again or the
    /// bindings are cleared (``clearBindings()``): SQLite reads them whenever the statement steps.
    public func bindBlob(inPlace pointer: UnsafeRawPointer, count: Int, at index: Int) {
        sqlite3_bind_blob(handle, Int32(index), pointer, Int32(count), nil)
    }

    /// Binds `count` bytes of UTF-8 at `pointer` as text that SQLite reads in place, without a copy
    /// (the same contract as ``bindBlob(inPlace:count:at:)``). `pointer` must not be `NULL`, even for ''.
    public func bindText(inPlace pointer: UnsafeRawPointer, count: Int, at index: Int) {
        sqlite3_bind_text(handle, Int32(index), pointer.assumingMemoryBound(to: CChar.self), Int32(count), nil)
    }
}
