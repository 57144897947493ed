import CSQLite
import Foundation

extension Database {
    /// Registers the SQL function `erfc(x)` (the complementary error function, the C library's
    /// `erfc`) on this connection; SQLite's math functions have `sqrt` and `exp` but no `erfc`.
    /// `NULL` gives `NULL`. Registering again replaces the same function.
    ///
    /// - Throws: ``StorageError`` when SQLite refuses the registration.
    ///
    /// ```swift
    /// try db.defineErfc()
    /// let p = try db.scalar("SELECT erfc(1.96 / sqrt(2))")   // 0.04999…
    /// ```
    public func defineErfc() throws {
        let code = sqlite3_create_function_v2(
            handle, "erfc", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, values in
                guard count == 1, let value = values?[0], sqlite3_value_type(value) != SQLITE_NULL else {
                    sqlite3_result_null(context)
                    return
                }
                sqlite3_result_double(context, erfc(sqlite3_value_double(value)))
            }, nil, nil, nil)
        guard code == SQLITE_OK else { throw StorageError.from(handle, code: code, sql: "erfc()", path: path) }
    }
}
