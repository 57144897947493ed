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

    private static func insert(_ sql: String, _ value: String, _ db: Database) throws -> Int64 {
        let statement = try db.cachedStatement(sql)
        statement.bind(value, at: 1)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.row.int64(at: 0)
    }
}
