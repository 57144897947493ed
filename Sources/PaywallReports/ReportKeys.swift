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

        func insert(_ sql: String, _ db: Database) throws {
            let statement = try db.cachedStatement(sql)
            try bytes.withUnsafeBytes { bytes in
                var start = 0
                for (key, end) in entries {
                    statement.reset()
                    statement.bind(key, at: 1)
                    statement.bindText(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), at: 2)
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

    /// The names that got a key since the last call.
    mutating func takeNew() -> NewNames {
        defer { new = NewNames() }
        return new
    }

    /// The key of the customer named by text column `column` of `row` (inserted when new).
    mutating func customer(_ row: Row, _ column: Int) -> Int64 {
        row.withUnsafeText(at: column) { bytes in
            if let key = customers.key(bytes) { return key }
            let key = nextCustomer
            new.customers.append(key, bytes)
            customers.insert(bytes, key: key)
            nextCustomer += 1
            return key
        }
    }

    /// The key of the placement named by text column `column` of `row` (inserted when new).
    mutating func placement(_ row: Row, _ column: Int) -> Int64 {
        row.withUnsafeText(at: column) { bytes in
            if let key = placements.key(bytes) { return key }
            let key = nextPlacement
            new.placements.append(key, bytes)
            placements.insert(bytes, key: key)
            nextPlacement += 1
            return key
        }
    }
}
