import PaywallSQLite

/// Dense integer keys for customers (`report_customers`) and placements (`report_placements`),
/// cached in memory for one refresh and looked up from a row's bytes; new names get the next key
/// and are inserted inside the refresh's transaction.
struct ReportKeys {
    private var customers = ByteKeyTable()
    private var placements = ByteKeyTable()
    private var nextCustomer: Int64 = 1
    private var nextPlacement: Int64 = 1
    private var loaded = false

    mutating func load(_ db: Database) throws {
        guard !loaded else { return }
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

    /// Forgets the cache (after a rolled-back transaction, inserted keys may not exist).
    mutating func invalidate() {
        self = ReportKeys()
    }

    /// The key of the customer named by text column `column` of `row` (inserted when new).
    mutating func customer(_ row: Row, _ column: Int, _ db: Database) throws -> Int64 {
        try row.withUnsafeText(at: column) { bytes in
            if let key = customers.key(bytes) { return key }
            let key = nextCustomer
            try Self.insert("INSERT INTO report_customers (key, user_id) VALUES (?, ?)", key, bytes, db)
            customers.insert(bytes, key: key)
            nextCustomer += 1
            return key
        }
    }

    /// The key of the placement named by text column `column` of `row` (inserted when new).
    mutating func placement(_ row: Row, _ column: Int, _ db: Database) throws -> Int64 {
        try row.withUnsafeText(at: column) { bytes in
            if let key = placements.key(bytes) { return key }
            let key = nextPlacement
            try Self.insert("INSERT INTO report_placements (key, placement) VALUES (?, ?)", key, bytes, db)
            placements.insert(bytes, key: key)
            nextPlacement += 1
            return key
        }
    }

    private static func insert(_ sql: String, _ key: Int64, _ name: UnsafeRawBufferPointer, _ db: Database) throws {
        let statement = try db.cachedStatement(sql)
        statement.reset()
        statement.bind(key, at: 1)
        statement.bindText(name, at: 2)
        try statement.run()
    }
}
