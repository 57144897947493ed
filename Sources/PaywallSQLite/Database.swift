import CSQLite
import Foundation

/// The raw connection as seen inside ``Connection``'s lock: run SQL, prepare and cache
/// statements, stream rows. Obtain one only through ``Connection/withDatabase(_:)`` or
/// ``Connection/transaction(_:_:)``; never keep it outside the closure.
public final class Database {
    /// The database file path.
    public let path: String
    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    /// A ``BackgroundCheckpointer``'s state retained by the WAL hook while it is installed.
    var walHookContext: UnsafeMutableRawPointer?

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    /// Runs one or more SQL statements separated by `;`, without bound values.
    ///
    /// - Throws: ``StorageError`` naming the SQL.
    public func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw StorageError.from(handle, code: code, sql: sql, path: path) }
    }

    /// A prepared statement for `sql`, prepared once and reused (keyed by SQL text), reset and
    /// with bindings cleared.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try Statement(db: handle, sql: sql, path: path)
        cache[sql] = statement
        return statement
    }

    /// A new uncached statement (for one-off SQL).
    public func makeStatement(_ sql: String) throws -> Statement {
        try Statement(db: handle, sql: sql, path: path)
    }

    /// Runs a statement with `values` bound; returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        let statement = try cachedStatement(sql)
        statement.bind(values)
        try statement.run()
        return changes
    }

    /// Streams the rows of a query (constant memory); `body` returns `false` to stop.
    public func forEachRow(_ sql: String, _ values: [SQLValue] = [], _ body: (Row) throws -> Bool) throws {
        let statement = try cachedStatement(sql)
        statement.bind(values)
        try statement.forEachRow(body)
    }

    /// Maps every row of a query.
    public func all<T>(_ sql: String, _ values: [SQLValue] = [], _ map: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(sql, values) { row in
            result.append(try map(row))
            return true
        }
        return result
    }

    /// The first column of the first row, or `nil` when there is no row.
    public func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        var result: SQLValue?
        try forEachRow(sql, values) { row in
            result = row.value(at: 0)
            return false
        }
        return result
    }

    /// The first column of the first row as an integer (`nil` when no row or `NULL`).
    public func int64(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        try scalar(sql, values)?.int64
    }

    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The schema version stored in `PRAGMA user_version`.
    public func userVersion() throws -> Int { Int(try int64("PRAGMA user_version") ?? 0) }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` by default): committed when it returns,
    /// rolled back when it throws. Not re-entrant.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Finalizes every cached statement (before closing).
    func clearCache() { cache.removeAll() }
}

/// How a transaction takes its locks.
public enum TransactionKind: String, Sendable {
    /// Takes the write lock at `BEGIN`, so a busy database fails early rather than mid-way.
    case immediate = "IMMEDIATE"
    /// Takes locks lazily (read transactions).
    case deferred = "DEFERRED"
}
