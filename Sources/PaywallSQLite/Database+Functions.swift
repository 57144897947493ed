import CSQLite
import Foundation

extension Database {
    /// Registers two SQL functions on this connection that the report SQL needs and a system SQLite
    /// need not have: `erfc(x)` (the complementary error function; SQLite has none) and
    /// `square_root(x)` (SQLite's own `sqrt` exists only when it was built with its math functions,
    /// which Apple's system SQLite need not be). Both are the C library's, so they give the same
    /// doubles as Swift's `erfc` and `squareRoot()`; `NULL` gives `NULL`. Registering again replaces them.
    ///
    /// - Throws: ``StorageError`` when SQLite refuses a registration.
    ///
    /// ```swift
    /// try db.defineMathFunctions()
    /// let p = try db.scalar("SELECT erfc(1.959964 / square_root(2.0))")   // 0.05000…
    /// ```
    public func defineMathFunctions() throws {
        try define("erfc") { erfc($0) }
        try define("square_root") { $0.squareRoot() }
    }

    private func define(_ name: String, _ function: @convention(c) (Double) -> Double) throws {
        let box = Unmanaged.passRetained(FunctionBox(function))
        let code = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box.toOpaque(),
            { context, count, values in
                guard count == 1, let value = values?[0], sqlite3_value_type(value) != SQLITE_NULL,
                    let data = sqlite3_user_data(context)
                else {
                    sqlite3_result_null(context)
                    return
                }
                let box = Unmanaged<FunctionBox>.fromOpaque(data).takeUnretainedValue()
                sqlite3_result_double(context, box.function(sqlite3_value_double(value)))
            }, nil, nil,
            { data in if let data { Unmanaged<FunctionBox>.fromOpaque(data).release() } })
        guard code == SQLITE_OK else { throw StorageError.from(handle, code: code, sql: "\(name)()", path: path) }
    }
}

/// A C function of one double, held for SQLite as a function's user data (released by SQLite's destructor).
private final class FunctionBox {
    let function: @convention(c) (Double) -> Double
    init(_ function: @convention(c) (Double) -> Double) { self.function = function }
}
