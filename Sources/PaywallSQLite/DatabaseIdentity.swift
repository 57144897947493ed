import Foundation

/// How a ``Migrator`` recognises its own databases, so that it never migrates someone else's:
/// `PRAGMA application_id` marks every database it creates or upgrades, and a database from before
/// that mark (application id 0) is taken as one of its own only if it has the marker tables with
/// their marker columns.
///
/// ```swift
/// let identity = DatabaseIdentity(applicationID: 0x5057_414E, name: "PaywallAnalytics store",
///                                 markers: ["events": ["id", "pw_id"]])
/// let migrator = Migrator(migrations, identity: identity)
/// ```
public struct DatabaseIdentity: Sendable, Equatable {
    /// The value of `PRAGMA application_id` that marks the databases (a 32-bit constant).
    public let applicationID: Int32
    /// What such a database is called in messages, e.g. `"PaywallAnalytics store"`.
    public let name: String
    /// Tables (with columns) that every schema version from 1 on has; checked only when the
    /// application id is 0.
    public let markers: [String: [String]]

    /// Creates an identity.
    public init(applicationID: Int32, name: String, markers: [String: [String]]) {
        self.applicationID = applicationID
        self.name = name
        self.markers = markers
    }

    /// What a database file turned out to be.
    public enum Verdict: Sendable, Equatable {
        /// No schema at all (new, zero-length or an empty SQLite file): it may become one of ours.
        case empty
        /// One of ours (marked, or an older unmarked one with the marker tables).
        case ours
        /// Another program's database; the reason says what gave it away.
        case foreign(reason: String)
    }

    /// Classifies the connection's main database with reads only.
    ///
    /// - Throws: ``StorageError`` when the file cannot be read.
    public func classify(_ db: Database) throws -> Verdict {
        let application = Int32(truncatingIfNeeded: try db.int64("PRAGMA application_id") ?? 0)
        if application == applicationID { return .ours }
        if application != 0 {
            return .foreign(
                reason: "its application_id is \(Self.hex(application)), another program's, not "
                    + "\(Self.hex(applicationID))")
        }
        let version = try db.int64("PRAGMA user_version") ?? 0
        let tables = try db.all("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
            $0.string(at: 0) ?? ""
        }
        let objects = try db.int64("SELECT count(*) FROM sqlite_schema") ?? 0
        if objects == 0 && version == 0 { return .empty }
        if version >= 1, try hasMarkers(db, tables: Set(tables)) { return .ours }
        var found: [String] = []
        if !tables.isEmpty {
            let shown =
                tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", … (\(tables.count) in all)" : "")
            found.append("it has the table\(tables.count == 1 ? "" : "s") \(shown)")
        } else if objects > 0 {
            found.append("it has \(objects) schema object\(objects == 1 ? "" : "s") but no table of ours")
        }
        if version != 0 { found.append("user_version \(version)") }
        found.append("no application_id")
        return .foreign(reason: found.joined(separator: ", "))
    }

    /// Classifies the database file at `path` without leaving a trace: it is opened `immutable=1`
    /// (no lock, no -wal or -shm created, nothing written), unless a non-empty `-wal` beside it may
    /// hold its schema, in which case it is opened read-only.
    ///
    /// - Throws: ``StorageError`` when the file cannot be read as a database.
    public func classify(fileAt path: String) throws -> Verdict {
        let immutable = try Connection(path: Self.uri(path, query: "immutable=1"), options: .readOnly)
        let verdict = try immutable.withDatabase { try classify($0) }
        guard verdict == .empty,
            let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int,
            size > 0
        else { return verdict }
        let reader = try Connection(path: Self.uri(path, query: "mode=ro"), options: .readOnly)
        return try reader.withDatabase { try classify($0) }
    }

    /// A `file:` URI for `path` (characters with meaning in URIs escaped) with `query`.
    public static func uri(_ path: String, query: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(escaped)?\(query)"
    }

    /// Whether every marker table exists with its marker columns.
    func hasMarkers(_ db: Database, tables: Set<String>) throws -> Bool {
        for (table, columns) in markers {
            guard tables.contains(table) else { return false }
            let present = Set(
                try db.all("SELECT name FROM pragma_table_info(?1)", [.text(table)]) {
                    $0.string(at: 0) ?? ""
                })
            if !columns.allSatisfy(present.contains) { return false }
        }
        return true
    }

    /// `0x5057414E`.
    static func hex(_ value: Int32) -> String {
        let digits = String(UInt32(bitPattern: value), radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// Throws ``StorageError/Kind/foreignDatabase(expected:reason:)`` unless `verdict` is empty or ours.
    public func require(_ verdict: Verdict, path: String) throws {
        guard case .foreign(let reason) = verdict else { return }
        throw StorageError(
            code: 0, message: "", sql: nil, path: path, kind: .foreignDatabase(expected: name, reason: reason))
    }
}
