import CSQLite
import Foundation

/// The current row of a ``Statement``, read by 0-based column index. Valid only until the
/// statement steps again; copy values out, never keep the row.
public struct Row {
    @usableFromInline let handle: OpaquePointer

    /// A row of the statement `handle` (its current row).
    @usableFromInline init(handle: OpaquePointer) { self.handle = handle }

    /// Number of columns.
    public var count: Int { Int(sqlite3_column_count(handle)) }

    /// The name of column `index`.
    public func name(at index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    /// Whether column `index` is `NULL`.
    public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    /// Column `index` as an integer (`0` for `NULL`).
    @inlinable public func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// Column `index` as an integer, `nil` for `NULL`.
    public func optionalInt64(at index: Int) -> Int64? { isNull(at: index) ? nil : int64(at: index) }

    /// Column `index` as a float, `nil` for `NULL`.
    public func double(at index: Int) -> Double? {
        isNull(at: index) ? nil : sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` as a float (`0` for `NULL`): for a caller that already knows the type.
    @inlinable public func plainDouble(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    /// Column `index` as text, `nil` for `NULL`.
    public func string(at index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let length = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// Column `index` as bytes, `nil` for `NULL`.
    public func data(at index: Int) -> Data? {
        if isNull(at: index) { return nil }
        let length = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard let bytes = sqlite3_column_blob(handle, Int32(index)) else { return Data() }
        return Data(bytes: bytes, count: length)
    }

    /// Column `index` as a typed ``SQLValue``.
    public func value(at index: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, Int32(index)))
        case SQLITE_TEXT: return .text(string(at: index) ?? "")
        case SQLITE_BLOB: return .blob(data(at: index) ?? Data())
        default: return .null
        }
    }
}
