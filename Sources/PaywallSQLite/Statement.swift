import CSQLite
import Foundation

/// SQLite's "copy the value now" destructor for bound text and blobs.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement that finalizes itself. Bind with 1-based indexes, then `step()` or `run()`.
///
/// Statements belong to one ``Database`` and are used only inside its lock; they are not `Sendable`.
///
/// ```swift
/// let insert = try db.cachedStatement("INSERT INTO meta (key, value) VALUES (?, ?)")
/// insert.bind("lease", at: 1)
/// insert.bind("owner", at: 2)
/// try insert.run()
/// ```
public final class Statement {
    /// The SQL text this statement was prepared from.
    public let sql: String
    let handle: OpaquePointer
    let db: OpaquePointer
    let path: String?

    init(db: OpaquePointer, sql: String, path: String?) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw StorageError.from(db, code: code, sql: sql, path: path)
        }
        self.sql = sql
        self.handle = statement
        self.db = db
        self.path = path
    }

    deinit { sqlite3_finalize(handle) }

    /// Number of `?` parameters.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// Resets the statement so it can run again; bindings are kept until ``clearBindings()``.
    public func reset() { sqlite3_reset(handle) }

    /// Sets every parameter to `NULL`.
    public func clearBindings() { sqlite3_clear_bindings(handle) }

    /// Binds an integer at the 1-based `index`.
    public func bind(_ value: Int64, at index: Int) { sqlite3_bind_int64(handle, Int32(index), value) }

    /// Binds an integer, or `NULL` when `nil`.
    public func bind(_ value: Int64?, at index: Int) {
        if let value { sqlite3_bind_int64(handle, Int32(index), value) } else { bindNull(at: index) }
    }

    /// Binds a float, or `NULL` when `nil`.
    public func bind(_ value: Double?, at index: Int) {
        if let value { sqlite3_bind_double(handle, Int32(index), value) } else { bindNull(at: index) }
    }

    /// Binds text, or `NULL` when `nil`. SQLite copies the bytes.
    public func bind(_ value: String?, at index: Int) {
        guard var value else {
            bindNull(at: index)
            return
        }
        value.withUTF8 { bytes in bindText(UnsafeRawBufferPointer(bytes), at: index) }
    }

    /// Binds raw UTF-8 bytes as text. SQLite copies the bytes.
    public func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        // An empty buffer may have no base address; SQLite needs a non-NULL pointer for ''.
        let empty: StaticString = ""
        let base = bytes.count > 0 ? bytes.baseAddress! : UnsafeRawPointer(empty.utf8Start)
        sqlite3_bind_text(
            handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteTransient)
    }

    /// Binds bytes as a blob, or `NULL` when `nil`. SQLite copies the bytes.
    public func bind(_ value: Data?, at index: Int) {
        guard let value else {
            bindNull(at: index)
            return
        }
        value.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(
                handle, Int32(index), bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                Int32(bytes.count), sqliteTransient)
        }
    }

    /// Binds `NULL`.
    public func bindNull(at index: Int) { sqlite3_bind_null(handle, Int32(index)) }

    /// Binds any ``SQLValue``.
    public func bind(_ value: SQLValue, at index: Int) {
        switch value {
        case .integer(let int): bind(int, at: index)
        case .real(let real): bind(real, at: index)
        case .text(let text): bind(text, at: index)
        case .blob(let data): bind(data, at: index)
        case .null: bindNull(at: index)
        }
    }

    /// Resets, then binds `values` to parameters 1…n.
    public func bind(_ values: [SQLValue]) {
        reset()
        for (offset, value) in values.enumerated() { bind(value, at: offset + 1) }
    }

    /// Advances one row: `true` when a row is available (read it with ``row``), `false` when done.
    ///
    /// - Throws: ``StorageError`` with this statement's SQL (never its bound values).
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = StorageError.from(db, code: code, sql: sql, path: path)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion with its current bindings, then resets it.
    public func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// The current row; valid until the next `step()` or `reset()`.
    public var row: Row { Row(handle: handle) }

    /// Streams rows one at a time (constant memory); `body` returns `false` to stop early.
    /// The statement is reset afterwards.
    public func forEachRow(_ body: (Row) throws -> Bool) throws {
        defer { sqlite3_reset(handle) }
        while try step() {
            if try !body(Row(handle: handle)) { break }
        }
    }
}
