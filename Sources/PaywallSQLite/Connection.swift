import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection with one serializer: every use goes through a lock, so the
/// connection can be shared by tasks and threads.
///
/// ```swift
/// let connection = try Connection(path: "events.sqlite")
/// try connection.transaction { db in
///     try db.run("INSERT INTO meta (key, value) VALUES (?, ?)", [.text("k"), .text("v")])
/// }
/// ```
// @unchecked Sendable: `lock` guards `database` (the handle and its statement cache); nothing
// else is mutable.
public final class Connection: @unchecked Sendable {
    /// The database file path.
    public let path: String
    private let lock = NSLock()
    private let database: Database
    /// How this connection waits for a lock another connection holds (installed on its handle).
    let busyWait: BusyWait

    /// How long this connection waits for a lock another connection holds, in milliseconds.
    public var busyTimeoutMilliseconds: Int32 { busyWait.timeoutMilliseconds }

    /// Whether this connection cannot write (opened read-only, or the file is read-only).
    public var isReadOnly: Bool { withDatabase { sqlite3_db_readonly($0.handle, "main") == 1 } }

    /// Process-wide SQLite settings, applied once before the first connection opens: memory
    /// statistics off (they serialize every allocation behind one global mutex; nothing here reads them).
    private static let libraryConfigured: Bool = csqlite_disable_memory_statistics() == SQLITE_OK

    /// Opens (and by default creates, mode 0600) the database at `path`.
    ///
    /// With `options.wal` it sets `journal_mode = WAL` and checks SQLite really switched,
    /// and sets `synchronous = NORMAL`.
    ///
    /// - Throws: ``StorageError`` (`.cannotOpen`, `.corrupt` for a file that is not a database,
    ///   `.readOnly` when write access was asked for but the file is read-only, `.walUnavailable`).
    public init(path: String, options: OpenOptions = .default) throws {
        self.path = path
        if options.create && !options.readOnly { try Connection.createPrivateFile(path) }
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if options.create && !options.readOnly { flags |= SQLITE_OPEN_CREATE }
        _ = Connection.libraryConfigured
        var handle: OpaquePointer?
        let opened = options.readOnly && options.immutable ? Connection.uri(path, query: "immutable=1") : path
        let code = sqlite3_open_v2(opened, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = StorageError.from(handle, code: code, sql: nil, path: path)
            sqlite3_close_v2(handle)
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        busyWait = BusyWait(timeoutMilliseconds: options.busyTimeoutMilliseconds)
        BusyWait.install(handle, busyWait)
        database = Database(handle: handle, path: path)
        // Touch the schema so a file of garbage fails here, before anything is written.
        _ = try database.int64("PRAGMA schema_version")
        if !options.readOnly && sqlite3_db_readonly(handle, "main") == 1 {
            throw StorageError(
                code: SQLITE_READONLY, message: "the file could not be opened for writing",
                path: path, kind: .readOnly)
        }
        if options.wal { try enableWAL() }
    }

    /// `path` as a `file:` URI (absolute, percent-escaped) with `query`.
    static func uri(_ path: String, query: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:\(absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute)?\(query)"
    }

    deinit {
        database.walHookContext.map { Unmanaged<CheckpointerState>.fromOpaque($0).release() }
        database.clearCache()
        sqlite3_close_v2(database.handle)
    }

    /// Sets `journal_mode = WAL`, verifies it took effect, and sets `synchronous = NORMAL`.
    ///
    /// - Throws: ``StorageError`` `.walUnavailable(mode:)` when SQLite reports another mode.
    public func enableWAL() throws {
        try withDatabase { db in
            let mode = try db.scalar("PRAGMA journal_mode = WAL")?.string?.lowercased() ?? ""
            guard mode == "wal" else {
                throw StorageError(
                    code: 0, message: "", sql: "PRAGMA journal_mode = WAL", path: path,
                    kind: .walUnavailable(mode: mode))
            }
            try db.execute("PRAGMA synchronous = NORMAL")
        }
    }

    /// Runs `body` with exclusive use of the connection.
    public func withDatabase<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Runs `body` in one transaction (committed on return, rolled back on throw), holding the
    /// connection's lock throughout.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        try withDatabase { db in try db.transaction(kind) { try body(db) } }
    }

    /// Runs SQL without bound values (several statements allowed).
    public func execute(_ sql: String) throws {
        try withDatabase { try $0.execute(sql) }
    }

    /// Runs one statement with bound values; returns the rows changed.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        try withDatabase { try $0.run(sql, values) }
    }

    /// Maps every row of a query.
    public func all<T>(_ sql: String, _ values: [SQLValue] = [], _ map: (Row) throws -> T) throws -> [T] {
        try withDatabase { try $0.all(sql, values, map) }
    }

    /// The first column of the first row, or `nil`.
    public func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        try withDatabase { try $0.scalar(sql, values) }
    }

    /// Creates `path` with mode 0600 when it does not exist (then `chmod`s, whatever the umask),
    /// and first its missing folders, each with mode 0700: a fresh app container has no
    /// Application Support folder, and opening must not fail only because of that.
    static func createPrivateFile(_ path: String) throws {
        if path.isEmpty || path == ":memory:" || path.hasPrefix("file:") { return }
        var descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor < 0 && errno == ENOENT {
            try createPrivateDirectories(parentOf: path)
            descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        }
        if descriptor >= 0 {
            close(descriptor)
            if chmod(path, 0o600) != 0 {
                throw StorageError(
                    code: SQLITE_CANTOPEN, message: String(cString: strerror(errno)), path: path,
                    kind: .cannotOpen)
            }
        } else if errno != EEXIST {
            throw StorageError(
                code: SQLITE_CANTOPEN, message: String(cString: strerror(errno)), path: path,
                kind: .cannotOpen)
        }
    }

    /// Creates the missing folders above `path`, outermost first, each with mode 0700.
    static func createPrivateDirectories(parentOf path: String) throws {
        var missing: [String] = []
        var folder = (path as NSString).deletingLastPathComponent
        while !folder.isEmpty && folder != "/" && !FileManager.default.fileExists(atPath: folder) {
            missing.append(folder)
            folder = (folder as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            if mkdir(directory, 0o700) == 0 {
                _ = chmod(directory, 0o700)  // whatever the umask
            } else if errno != EEXIST {
                throw StorageError(
                    code: SQLITE_CANTOPEN,
                    message: "cannot create the folder \(directory): \(String(cString: strerror(errno)))",
                    path: path, kind: .cannotOpen)
            }
        }
    }
}
