/// One schema change: a name (unique within its owner's ``MigrationGroup``) and what applies it.
public struct Migration: Sendable {
    /// A short name, unique within its group, e.g. `"dead-letter-buckets"`.
    public let name: String
    /// Applies the change; runs inside the migration's transaction.
    public let apply: @Sendable (Database) throws -> Void

    /// Creates a migration that runs `sql` (one or more statements).
    public init(_ name: String, sql: String) {
        self.name = name
        self.apply = { try $0.execute(sql) }
    }

    /// Creates a migration that runs `body`, for a change that needs bound values (meta keys).
    public init(_ name: String, apply body: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.apply = body
    }
}

/// The migrations one module owns, oldest first, recorded as `owner/name` in `schema_migrations`.
///
/// A module declares one group and never edits a shipped migration: it appends a new one. Owners
/// are what lets several modules share one file: an applied identifier whose owner is not
/// registered (a table of a module this program does not link) is left alone, while an unknown
/// identifier of a registered owner means a newer program migrated the file, and it is refused.
///
/// ```swift
/// public static let migrations = MigrationGroup(owner: "collector", [
///     Migration("keys", sql: "CREATE TABLE collector_keys (key TEXT PRIMARY KEY NOT NULL) STRICT"),
/// ])
/// ```
public struct MigrationGroup: Sendable {
    /// The owning module's short name; the prefix of its identifiers (no `/`).
    public let owner: String
    /// The migrations, oldest first.
    public let migrations: [Migration]

    /// Creates a group.
    public init(owner: String, _ migrations: [Migration]) {
        precondition(!owner.isEmpty && !owner.contains("/"), "a migration owner is a non-empty name without '/'")
        precondition(Set(migrations.map(\.name)).count == migrations.count, "duplicate migration name in \(owner)")
        self.owner = owner
        self.migrations = migrations
    }

    /// The identifier recorded for `migration`: `owner/name`.
    public func identifier(of migration: Migration) -> String { "\(owner)/\(migration.name)" }

    /// The owner of a recorded identifier (the text before its first `/`), if any.
    static func owner(of identifier: String) -> Substring? {
        guard let slash = identifier.firstIndex(of: "/") else { return nil }
        return identifier[..<slash]
    }
}
