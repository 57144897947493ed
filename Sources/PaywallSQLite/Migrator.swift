#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Applies the migrations of several owners to one database, one transaction each, recording each
/// applied one by identifier (`owner/name`) in `schema_migrations` — GRDB's `DatabaseMigrator` idea.
///
/// Order: the registered ``legacy`` identifiers first, in their historic order, then every other
/// migration group by group, in registration order (register a group after the groups it builds on).
///
/// `PRAGMA user_version` stays meaningful for programs that predate identifiers (they count
/// migrations there and refuse a higher number): a database whose applied set is exactly the first
/// N legacy identifiers is at version N; any other applied set is above every legacy version
/// (`legacy.count + 1`, or the applied count if higher), and the value never decreases.
///
/// Refused, before anything is written (`StorageError.Kind.schemaTooNew`):
/// - a database without `schema_migrations` whose version is above the legacy versions;
/// - a `user_version` higher than any program recording identifiers writes (a newer format);
/// - an applied identifier of a registered owner that this migrator does not know (a newer module).
/// Identifiers of owners not registered here are ignored: an app linking only the store may open a
/// file whose reports' tables another program added.
///
/// ```swift
/// let migrator = Migrator([storeGroup, reportsGroup], legacy: ["store/initial", "reports/rollups"])
/// let connection = try migrator.open(path: "events.sqlite")
/// ```
public struct Migrator: Sendable {
    /// One registered migration and the identifier it is recorded under.
    public struct Step: Sendable {
        /// `owner/name`.
        public let identifier: String
        /// The migration.
        public let migration: Migration
    }

    /// The table recording applied identifiers.
    public static let table = "schema_migrations"

    /// The registered groups, in registration order.
    public let groups: [MigrationGroup]
    /// The identifiers that count-based programs applied, in order: `user_version` N of a database
    /// without `schema_migrations` means the first N were applied. Frozen history: never edited.
    public let legacy: [String]
    /// Every registered migration, in the order pending ones are applied.
    public let steps: [Step]
    /// How the migrator's own databases are recognised; `nil`: any database is taken.
    public let identity: DatabaseIdentity?

    /// Creates a migrator for `groups`, upgrading count-based databases through `legacy`. With an
    /// `identity`, ``open(path:options:)`` refuses another program's database before anything is
    /// written, and the first transaction that writes to a database marks it with the identity's
    /// application id.
    public init(_ groups: [MigrationGroup], legacy: [String] = [], identity: DatabaseIdentity? = nil) {
        self.groups = groups
        self.legacy = legacy
        self.identity = identity
        let all = groups.flatMap { group in
            group.migrations.map { Step(identifier: group.identifier(of: $0), migration: $0) }
        }
        precondition(Set(all.map(\.identifier)).count == all.count, "a migration identifier is registered twice")
        let byIdentifier = Dictionary(uniqueKeysWithValues: all.map { ($0.identifier, $0) })
        let legacySteps = legacy.compactMap { byIdentifier[$0] }
        let legacySet = Set(legacy)
        steps = legacySteps + all.filter { !legacySet.contains($0.identifier) }
    }

    /// A migrator for one group (owner `main`), without legacy versions.
    public init(_ migrations: [Migration]) {
        self.init([MigrationGroup(owner: "main", migrations)])
    }

    /// The `user_version` of a database holding exactly this migrator's migrations.
    public var latestVersion: Int { version(applied: Set(steps.map(\.identifier))) }

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

    /// Records the legacy identifiers of a count-based database, then applies every pending
    /// migration, one transaction each; returns the `user_version` before and after.
    ///
    /// - Throws: ``StorageError``; a failing migration is rolled back and later ones are not run.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> (from: Int, to: Int) {
        try connection.withDatabase { db in
            var state = try refuseNewer(db)
            let start = state.version
            if !state.recorded {
                try db.transaction(.immediate) {
                    // Re-read inside the write lock: another process may have recorded them meanwhile.
                    let current = try refuseNewer(db)
                    guard !current.recorded else { return }
                    if let identity {
                        // A database is marked in the first transaction that writes to it.
                        try db.execute("PRAGMA application_id = \(identity.applicationID)")
                    }
                    try db.execute(
                        """
                        CREATE TABLE schema_migrations (identifier TEXT PRIMARY KEY NOT NULL, applied_at INTEGER) STRICT
                        """)
                    // applied_at stays NULL: a count-based program did not say when.
                    for identifier in current.applied.sorted() {
                        try db.run("INSERT INTO schema_migrations (identifier) VALUES (?1)", [.text(identifier)])
                    }
                }
                state = try refuseNewer(db)
            }
            for step in steps where !state.applied.contains(step.identifier) {
                try db.transaction(.immediate) {
                    let current = try refuseNewer(db)
                    guard !current.applied.contains(step.identifier) else { return }
                    try step.migration.apply(db)
                    try db.run(
                        """
                        INSERT INTO schema_migrations (identifier, applied_at)
                        VALUES (?1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
                        """, [.text(step.identifier)])
                    let version = max(current.version, self.version(applied: current.applied.union([step.identifier])))
                    try db.execute("PRAGMA user_version = \(version)")
                }
                state = try refuseNewer(db)
            }
            return (start, state.version)
        }
    }

    /// What a database holds, as read before migrating.
    public struct State: Sendable, Equatable {
        /// `PRAGMA user_version`.
        public var version: Int
        /// The applied identifiers (for a count-based database, the first `version` legacy ones).
        public var applied: Set<String>
        /// Whether `schema_migrations` exists (otherwise the database is count-based or new).
        public var recorded: Bool
    }

    /// Reads the database's state without writing; throws `.schemaTooNew` for a database this
    /// migrator must not touch (see the type's documentation).
    @discardableResult
    public func refuseNewer(_ db: Database) throws -> State {
        let found = try db.userVersion()
        let recorded =
            try db.int64(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [.text(Self.table)]) == 1
        guard recorded else {
            guard found <= legacy.count else { throw tooNew(db, found: found) }
            return State(version: found, applied: Set(legacy.prefix(found)), recorded: false)
        }
        let applied = Set(try db.all("SELECT identifier FROM schema_migrations") { $0.string(at: 0) ?? "" })
        guard found <= max(legacy.count + 1, applied.count) else { throw tooNew(db, found: found) }
        let owners = Set(groups.map { Substring($0.owner) })
        let known = Set(steps.map(\.identifier))
        let unknown = applied.filter { identifier in
            MigrationGroup.owner(of: identifier).map(owners.contains) == true && !known.contains(identifier)
        }
        if let first = unknown.min() {
            throw tooNew(db, found: found, detail: "migration \(first) was applied by a newer program")
        }
        return State(version: found, applied: applied, recorded: true)
    }

    /// The `user_version` for an applied set (see the type's documentation), before keeping it monotonic.
    func version(applied: Set<String>) -> Int {
        if applied.count <= legacy.count, Set(legacy.prefix(applied.count)) == applied { return applied.count }
        return max(legacy.count + 1, applied.count)
    }

    func tooNew(_ db: Database, found: Int, detail: String = "") -> StorageError {
        StorageError(
            code: 0, message: detail, sql: nil, path: db.path,
            kind: .schemaTooNew(found: found, known: latestVersion))
    }
}
