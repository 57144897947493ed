#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One schema change: a name (for messages and reviews) and the SQL that applies it.
public struct Migration: Sendable {
    /// A short unique name, e.g. `"1-events-outbox-quarantine"`.
    public let name: String
    /// The SQL applied, in the migration's transaction.
    public let sql: String

    /// Creates a migration.
    public init(_ name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// Applies ordered migrations, one transaction each, keeping the count applied in
/// `PRAGMA user_version`. A database whose version is newer than the list is refused and left
/// untouched.
///
/// ```swift
/// let migrator = Migrator([Migration("1-initial", sql: "CREATE TABLE …")])
/// let connection = try migrator.open(path: "events.sqlite")
/// ```
public struct Migrator: Sendable {
    /// The migrations in order; migration `i` (0-based) brings the schema to version `i + 1`.
    public let migrations: [Migration]
    /// How the migrator's own databases are recognised; `nil`: any database is taken.
    public let identity: DatabaseIdentity?

    /// Creates a migrator; with an `identity`, ``open(path:options:)`` refuses another program's
    /// database before anything is written, and a new database gets its application id in the same
    /// transaction as the first migration.
    public init(_ migrations: [Migration], identity: DatabaseIdentity? = nil) {
        self.migrations = migrations
        self.identity = identity
    }

    /// The newest schema version this migrator knows.
    public var latestVersion: Int { migrations.count }

    /// Opens `path` safely: refuses another program's database (see ``identity``) and a too-new
    /// schema before anything is written, then enables WAL (if asked) and applies pending migrations.
    ///
    /// - Throws: ``StorageError``; `.foreignDatabase` and `.schemaTooNew(found:known:)` leave the
    ///   file untouched.
    public func open(path: String, options: OpenOptions = .default) throws -> Connection {
        var quiet = options
        quiet.wal = false
        let connection = try Connection(path: path, options: quiet)
        _ = try connection.withDatabase { db in
            if let identity { try identity.require(try identity.classify(db), path: path) }
            return try refuseNewer(db)
        }
        if options.readOnly { return connection }
        if options.wal { try connection.enableWAL() }
        try migrate(connection)
        return connection
    }

    /// Checks, reading only, that an existing non-empty file at `path` is empty of schema or one of
    /// this migrator's databases (``identity``); a missing or zero-length file passes.
    ///
    /// - Throws: ``StorageError`` `.foreignDatabase`, or the failure to read it.
    public func checkIdentity(path: String) throws {
        guard let identity else { return }
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else { return }
        try identity.require(try identity.classify(fileAt: path), path: path)
    }

    /// Applies every pending migration, one transaction each; returns the versions before and after.
    ///
    /// - Throws: ``StorageError``; a failing migration is rolled back and later ones are not run.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> (from: Int, to: Int) {
        try connection.withDatabase { db in
            let start = try refuseNewer(db)
            var version = start
            while version < migrations.count {
                let migration = migrations[version]
                try db.transaction(.immediate) {
                    // Re-read inside the write lock: another process may have migrated meanwhile.
                    guard try db.userVersion() == version else { return }
                    if version == 0, let identity {
                        // A new database is marked in its first transaction, so it is never unmarked.
                        try db.execute("PRAGMA application_id = \(identity.applicationID)")
                    }
                    try db.execute(migration.sql)
                    try db.execute("PRAGMA user_version = \(version + 1)")
                }
                version = try refuseNewer(db)
            }
            return (start, version)
        }
    }

    /// Throws `.schemaTooNew` when the database's version exceeds ``latestVersion``; returns the version.
    @discardableResult
    public func refuseNewer(_ db: Database) throws -> Int {
        let found = try db.userVersion()
        guard found <= latestVersion else {
            throw StorageError(code: 0, message: "", sql: nil, path: db.path,
                               kind: .schemaTooNew(found: found, known: latestVersion))
        }
        return found
    }
}
