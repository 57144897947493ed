import PaywallSQLite

/// Dense integer keys for customers (`report_customers`) and placements (`report_placements`),
/// cached in memory for one refresh and looked up from a row's bytes. New names get the next key
/// and wait in ``NewNames`` until the chunk that uses them is merged (``NewNames/insert(_:)``, in
/// the chunk's transaction).
struct ReportKeys {
    /// Names that got a key since the last ``takeNew()``, their bytes back to back (no allocation per name).
    struct NewNames {
        fileprivate var customers = Names()
        fileprivate var placements = Names()

        /// Inserts the names into `report_customers` / `report_placements`.
        func insert(_ db: Database) throws {
            try customers.insert("INSERT INTO report_customers (key, user_id) VALUES (?, ?)", db)
            try placements.insert("INSERT INTO report_placements (key, placement) VALUES (?, ?)", db)
        }
    }

    fileprivate struct Names {
        var bytes: [UInt8] = []
        var entries: [(key: Int64, end: Int)] = []

        mutating func append(_ key: Int64, _ name: UnsafeRawBufferPointer) {
            bytes.append(contentsOf: name)
            entries.append((key, bytes.count))
        }

        /// The bytes of entry `index`.
        func withName<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            let start = index == 0 ? 0 : entries[index - 1].end
            return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<entries[index].end])) }
        }

        func insert(_ sql: String, _ db: Database) throws {
            let statement = try db.cachedStatement(sql)
            // The names are bound where they lie (no copy, no allocation per name); the statement
            // lets go of them before they can move.
            defer { statement.clearBindings() }
            try bytes.withUnsafeBytes { bytes in
                var start = 0
                for (key, end) in entries {
                    statement.reset()
                    statement.bind(key, at: 1)
                    statement.bindTextNoCopy(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), at: 2)
                    try statement.run()
                    start = end
                }
            }
        }
    }

    private var customers = ByteKeyTable()
    private var placements = ByteKeyTable()
    private var nextCustomer: Int64 = 1
    private var nextPlacement: Int64 = 1
    private var loaded = false
    private var new = NewNames()
    /// Names met while the key tables were not there yet, each holding the provisional key
    /// `-(index + 1)` until ``resolve(customer:from:)`` / ``resolve(placement:from:)``.
    private(set) var isDeferred = false
    private var pending = NewNames()

    /// Keys that hand out provisional (negative) keys, so a chunk can be read while the tables load
    /// on another thread; the real keys come from a loaded table's `resolve` calls.
    static func deferred() -> ReportKeys {
        var keys = ReportKeys()
        keys.isDeferred = true
        return keys
    }

    /// The real key of a provisional customer key handed out by `deferred` (assigned now when new);
    /// a key that is not provisional is returned as it is.
    mutating func resolve(customer key: Int64, from deferred: ReportKeys) -> Int64 {
        guard key < 0 else { return key }
        return deferred.pending.customers.withName(Int(-key - 1)) {
            Self.key($0, in: &customers, next: &nextCustomer, new: &new.customers)
        }
    }

    /// The real key of a provisional placement key handed out by `deferred` (assigned now when new).
    mutating func resolve(placement key: Int64, from deferred: ReportKeys) -> Int64 {
        guard key < 0 else { return key }
        return deferred.pending.placements.withName(Int(-key - 1)) {
            Self.key($0, in: &placements, next: &nextPlacement, new: &new.placements)
        }
    }

    mutating func load(_ db: Database) throws {
        guard !loaded else { return }
        customers.reserve(Int(try db.scalar("SELECT coalesce(max(key), 0) FROM report_customers")?.int64 ?? 0))
        try db.forEachRow("SELECT key, user_id FROM report_customers") { row in
            row.withUnsafeText(at: 1) { customers.insert($0, key: row.int64(at: 0)) }
            nextCustomer = max(nextCustomer, row.int64(at: 0) + 1)
            return true
        }
        try db.forEachRow("SELECT key, placement FROM report_placements") { row in
            row.withUnsafeText(at: 1) { placements.insert($0, key: row.int64(at: 0)) }
            nextPlacement = max(nextPlacement, row.int64(at: 0) + 1)
            return true
        }
        loaded = true
    }

    /// The names that got a key since the last call.
    mutating func takeNew() -> NewNames {
        defer { new = NewNames() }
        return new
    }

    /// The key of the customer named by text column `column` of `row` (inserted when new;
    /// provisional when deferred).
    mutating func customer(_ row: Row, _ column: Int) -> Int64 {
        row.withUnsafeText(at: column) {
            isDeferred
                ? Self.provisional($0, in: &pending.customers)
                : Self.key($0, in: &customers, next: &nextCustomer, new: &new.customers)
        }
    }

    /// The key of the placement named by text column `column` of `row` (inserted when new;
    /// provisional when deferred).
    mutating func placement(_ row: Row, _ column: Int) -> Int64 {
        row.withUnsafeText(at: column) {
            isDeferred
                ? Self.provisional($0, in: &pending.placements)
                : Self.key($0, in: &placements, next: &nextPlacement, new: &new.placements)
        }
    }

    /// Keeps `name` and hands out its provisional key.
    private static func provisional(_ name: UnsafeRawBufferPointer, in names: inout Names) -> Int64 {
        names.append(0, name)
        return -Int64(names.entries.count)
    }

    /// The key of `name` in `table`, or the next key (recorded in `new`) when it has none yet.
    private static func key(
        _ name: UnsafeRawBufferPointer, in table: inout ByteKeyTable, next: inout Int64,
        new: inout Names
    ) -> Int64 {
        if let key = table.key(name) { return key }
        let key = next
        new.append(key, name)
        table.insert(name, key: key)
        next += 1
        return key
    }
}
