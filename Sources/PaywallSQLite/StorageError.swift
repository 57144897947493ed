import CSQLite
import Foundation

/// Every failure of the SQLite layer: the SQLite result codes, the message, the SQL that failed
/// (never the values bound to it, which may hold user ids) and what to do about it.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, derived from the result code or from the layer's own checks.
    public enum Kind: Sendable, Equatable {
        /// The disk or the database's page limit is full (`SQLITE_FULL`).
        case full
        /// The database file or its directory cannot be written (`SQLITE_READONLY`).
        case readOnly
        /// Another connection or process holds the lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// The file is not an SQLite database or is damaged (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
        case corrupt
        /// The file cannot be opened or created (`SQLITE_CANTOPEN`, `SQLITE_PERM`).
        case cannotOpen
        /// The operating system reported an I/O failure (`SQLITE_IOERR`).
        case ioError
        /// A constraint (primary key, `CHECK`, `NOT NULL`) refused a row.
        case constraint
        /// The database's schema version is newer than this program knows; nothing was changed.
        case schemaTooNew(found: Int, known: Int)
        /// The file is an SQLite database of another program (``DatabaseIdentity``); nothing was changed.
        case foreignDatabase(expected: String, reason: String)
        /// WAL journal mode could not be set; SQLite reported another mode.
        case walUnavailable(mode: String)
        /// Any other SQLite failure.
        case other
    }

    /// The kind of failure.
    public var kind: Kind
    /// The primary SQLite result code (`0` for failures detected by this layer).
    public var code: Int32
    /// The extended SQLite result code.
    public var extendedCode: Int32
    /// SQLite's message, or this layer's.
    public var message: String
    /// The SQL text that failed, if any. Bound values are never included.
    public var sql: String?
    /// The database path, when known.
    public var path: String?

    /// Creates an error; `kind` is derived from `code` unless given.
    public init(
        code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil,
        path: String? = nil, kind: Kind? = nil
    ) {
        self.code = code
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
        self.kind = kind ?? StorageError.kind(forCode: code & 0xFF)
    }

    /// Whether retrying later may succeed (lock held elsewhere, disk full, I/O hiccup).
    public var isTransient: Bool {
        switch kind {
        case .busy, .full, .ioError: return true
        default: return false
        }
    }

    /// What went wrong, where, and what to do — without bound values.
    public var description: String { diagnosis + ". " + advice }

    /// What went wrong and where, without the advice (``advice``) and without bound values: a
    /// front end that words its own advice (the command line names its flags) starts from this.
    public var diagnosis: String {
        var text = "Storage error"
        if let path { text += " on \(path)" }
        text += ": \(summary)"
        if code != 0 {
            text += " [SQLite \(code)/\(extendedCode) \(Self.codeName(code)): \(message)]"
        } else if !message.isEmpty {
            text += " (\(message))"
        }
        if let sql { text += " while running `\(Self.abbreviate(sql))`" }
        return text
    }

    /// A short statement of what happened.
    public var summary: String {
        switch kind {
        case .full: return "the disk or the database size limit is full"
        case .readOnly: return "the database is read-only"
        case .busy: return "the database is locked by another connection or process"
        case .corrupt: return "the file is not a valid SQLite database or is damaged"
        case .cannotOpen: return "the database file cannot be opened"
        case .ioError: return "the operating system reported an I/O error"
        case .constraint: return "a row broke a table constraint"
        case .schemaTooNew(let found, let known):
            return "the database schema is version \(found) but this program knows up to version \(known)"
        case .foreignDatabase(let expected, let reason):
            return "the file is an SQLite database but not a \(expected) (\(reason))"
        case .walUnavailable(let mode): return "WAL journal mode could not be enabled (SQLite reports '\(mode)')"
        case .other: return "SQLite reported a failure"
        }
    }

    /// What can be done about it, in the SQLite layer's terms: no product, command or flag is named
    /// (a front end adds its own, as the command line does for a newer schema or a broken constraint).
    public var advice: String {
        switch kind {
        case .full: return "Free disk space (or raise the size limit), then retry the write."
        case .readOnly: return "Make the file and its directory writable by this user, or use another database."
        case .busy: return "Wait for the other process to finish, or stop it, then retry."
        case .corrupt: return "Use another database, or restore this one from a backup; the file was not modified."
        case .cannotOpen: return "Check that the directory exists and that this user may create and write files in it."
        case .ioError: return "Check the disk and the filesystem (dmesg), then retry."
        case .constraint: return "The write was refused and nothing of it was kept; the row did not fit the schema."
        case .schemaTooNew: return "A newer version of its program wrote this database; the file was left untouched."
        case .foreignDatabase: return "The file was left untouched."
        case .walUnavailable: return "Use a local filesystem that supports shared memory (not a network share)."
        case .other: return "Retry; if it persists, report this message."
        }
    }

    static func kind(forCode code: Int32) -> Kind {
        switch code {
        case SQLITE_FULL: return .full
        case SQLITE_READONLY: return .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_NOTADB, SQLITE_CORRUPT: return .corrupt
        case SQLITE_CANTOPEN, SQLITE_PERM: return .cannotOpen
        case SQLITE_IOERR: return .ioError
        case SQLITE_CONSTRAINT: return .constraint
        default: return .other
        }
    }

    static func codeName(_ code: Int32) -> String {
        switch code & 0xFF {
        case SQLITE_FULL: return "SQLITE_FULL"
        case SQLITE_READONLY: return "SQLITE_READONLY"
        case SQLITE_BUSY: return "SQLITE_BUSY"
        case SQLITE_LOCKED: return "SQLITE_LOCKED"
        case SQLITE_NOTADB: return "SQLITE_NOTADB"
        case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
        case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
        case SQLITE_PERM: return "SQLITE_PERM"
        case SQLITE_IOERR: return "SQLITE_IOERR"
        case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
        case SQLITE_ERROR: return "SQLITE_ERROR"
        case SQLITE_MISUSE: return "SQLITE_MISUSE"
        default: return String(cString: sqlite3_errstr(code))
        }
    }

    static func abbreviate(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        return flat.count > 160 ? String(flat.prefix(157)) + "..." : flat
    }

    /// An error from the connection's current state.
    static func from(_ db: OpaquePointer?, code: Int32, sql: String?, path: String?) -> StorageError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        return StorageError(code: code & 0xFF, extendedCode: extended, message: message, sql: sql, path: path)
    }
}
