import PaywallSQLite

/// Dense integer keys for customers (`report_customers`) and placements (`report_placements`),
/// cached in memory for one refresh; new names are inserted (inside the refresh's transaction).
struct ReportKeys {
    private var customers: [String: Int64] = [:]
    private var placements: [String: Int64] = [:]
    private var loaded = false

    mutating func load(_ db: Database) throws {
        guard !loaded else { return }
        try db.forEachRow("SELECT key, user_id FROM report_customers") { row in
            customers[row.string(at: 1) ?? ""] = row.int64(at: 0); return true
        }
        try db.forEachRow("SELECT key, placement FROM report_placements") { row in
            placements[row.string(at: 1) ?? ""] = row.int64(at: 0); return true
        }
        loaded = true
    }

    /// Forgets the cache (after a rolled-back transaction, inserted keys may not exist).
    mutating func invalidate() {
        customers = [:]
        placements = [:]
        loaded = false
    }

    /// The key of the customer named by text column `column` of `row` (inserted when new).
    mutating func customer(_ row: Row, _ column: Int, _ db: Database) throws -> Int64 {
        try customer(Self.text(row, column), db)
    }

    /// The key of the placement named by text column `column` of `row` (inserted when new).
    mutating func placement(_ row: Row, _ column: Int, _ db: Database) throws -> Int64 {
        try placement(Self.text(row, column), db)
    }

    mutating func customer(_ userID: String, _ db: Database) throws -> Int64 {
        if let key = customers[userID] { return key }
        let key = try Self.insert("INSERT INTO report_customers (user_id) VALUES (?) RETURNING key", userID, db)
        customers[userID] = key
        return key
    }

    mutating func placement(_ name: String, _ db: Database) throws -> Int64 {
        if let key = placements[name] { return key }
        let key = try Self.insert("INSERT INTO report_placements (placement) VALUES (?) RETURNING key", name, db)
        placements[name] = key
        return key
    }

    /// Short names (up to 15 UTF-8 bytes) become Strings without allocating.
    private static func text(_ row: Row, _ column: Int) -> String {
        row.withUnsafeText(at: column) { String(decoding: $0, as: UTF8.self) }
    }

    private static func insert(_ sql: String, _ value: String, _ db: Database) throws -> Int64 {
        let statement = try db.cachedStatement(sql)
        statement.bind(value, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.row.int64(at: 0)
    }
}
