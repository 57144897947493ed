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

    /// Names back to back with the key each got (provisional names: the index they were kept at).
    struct Names {
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
    /// Whether placements get provisional keys too (the key tables are not there yet).
    private(set) var isDeferred = false
    /// Names kept for provisional keys, each holding the key `-(index + 1)` until resolved
    /// (``resolveCustomers(of:names:)``, ``resolve(placement:from:)``):
    /// every customer name, and placement names while deferred.
    private var pending = NewNames()

    /// Keys that hand out provisional (negative) placement keys too, so a chunk can be read while
    /// the tables load on another thread; the real keys come from a loaded table's `resolve` calls.
    static func deferred() -> ReportKeys {
        var keys = ReportKeys()
        keys.isDeferred = true
        return keys
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

    /// The provisional key of the customer named by text column `column` of `row`: the name is kept
    /// until the chunk is read, then ``resolveCustomers(of:names:)`` gives the real keys, many
    /// lookups at a time.
    mutating func customer(_ row: Row, _ column: Int) -> Int64 {
        row.withUnsafeText(at: column) { Self.provisional($0, in: &pending.customers) }
    }

    /// The customer names kept for provisional keys since the last call (for
    /// ``resolveCustomers(of:names:)``); the next provisional key starts over at -1.
    mutating func takePendingCustomers() -> Names {
        defer { pending.customers = Names() }
        return pending.customers
    }

    /// Gives every fold with a provisional customer key (handed out while `names` were kept) its
    /// real key, assigning the next keys to new names in fold order.
    ///
    /// Speed (design note): a first build looks up a customer per presentation (4.4M lookups among
    /// 300k names at 10M events), each three cache misses (the slot, the name's place, its bytes)
    /// on tables of about 11 MB; one at a time they took about 2 s of the reading thread's 7 s
    /// there. Resolved here in fold order, the lookup of fold `i` goes ahead while the slot of fold
    /// `i + 16`, the place of fold `i + 8` and the bytes of fold `i + 4` are being loaded
    /// (``ByteKeyTable/prefetchSlot(_:)``), so the misses overlap instead of following each other.
    /// The hints change no result: every lookup is the same ``ByteKeyTable/key(_:hash:)`` in the
    /// same order, and a name inserted by an earlier fold is found by a later one.
    mutating func resolveCustomers(of folds: inout [PresentationFold], names: Names) {
        let entries = names.entries
        names.bytes.withUnsafeBytes { bytes in
            func name(_ fold: Int) -> UnsafeRawBufferPointer? {
                let key = folds[fold].customerKey
                guard key < 0 else { return nil }
                let index = Int(-key - 1)
                let start = index == 0 ? 0 : entries[index - 1].end
                return UnsafeRawBufferPointer(rebasing: bytes[start..<entries[index].end])
            }
            let hashes = folds.indices.map { name($0).map(ByteKeyTable.hash) ?? 0 }
            let count = folds.count
            for fold in 0..<count {
                if fold + 16 < count { customers.prefetchSlot(hashes[fold + 16]) }
                if fold + 8 < count { customers.prefetchPlace(hashes[fold + 8]) }
                if fold + 4 < count { customers.prefetchName(hashes[fold + 4]) }
                guard let name = name(fold) else { continue }
                folds[fold].customerKey = Self.key(
                    name, hash: hashes[fold], in: &customers, next: &nextCustomer, new: &new.customers)
            }
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
        _ name: UnsafeRawBufferPointer, hash: UInt32? = nil, in table: inout ByteKeyTable, next: inout Int64,
        new: inout Names
    ) -> Int64 {
        let hash = hash ?? ByteKeyTable.hash(name)
        if let key = table.key(name, hash: hash) { return key }
        let key = next
        new.append(key, name)
        table.insert(name, hash: hash, key: key)
        next += 1
        return key
    }
}
