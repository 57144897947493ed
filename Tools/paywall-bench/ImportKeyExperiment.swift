import Foundation
import PaywallSQLite

/// `paywall-bench import --key-experiment`: what the unique id index costs an import of random ids,
/// measured on the key alone, as the import writes (rows in arrival order, 100,000 to a transaction,
/// the import's page cache). The same random UUIDv4 keys go into tables of one shape (`k`,
/// `seq INTEGER PRIMARY KEY`, a 220-byte payload):
/// - the 36-byte text key with a `UNIQUE` constraint (the store's `events.id` today);
/// - a 16-byte BLOB key with a `UNIQUE` constraint (what a migration of `events.id` would give);
/// - the 36-byte text key without the constraint, the unique index created once every row is in
///   (what a first import into an empty store could do), the index's creation included in the time.
enum ImportKeyExperiment {
    /// The three layouts measured, in the order printed.
    enum Layout: CaseIterable {
        case text, blob, textIndexAfter

        var label: String {
            switch self {
            case .text: "36-byte text, UNIQUE"
            case .blob: "16-byte BLOB, UNIQUE"
            case .textIndexAfter: "36-byte text, unique index built after the rows"
            }
        }

        var createTable: String {
            switch self {
            case .text: "CREATE TABLE t (k TEXT NOT NULL UNIQUE, seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)"
            case .blob: "CREATE TABLE t (k BLOB NOT NULL UNIQUE, seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)"
            case .textIndexAfter: "CREATE TABLE t (k TEXT NOT NULL, seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)"
            }
        }

        /// The unique index on `k` (for the id index's size).
        var indexName: String { self == .textIndexAfter ? "t_k" : "sqlite_autoindex_t_1" }
    }

    static func run(count: Int, cacheBytes: Int) throws {
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // One set of keys for every layout, in arrival order.
        let keys = (0..<count).map { _ in UUID() }
        let payload = String(repeating: "x", count: 220)
        var rows: [[String]] = [["key", "rows/s", "× text, UNIQUE", "id index MB", "file MB"]]
        var textRate = 0.0
        for layout in Layout.allCases {
            let path = directory.appendingPathComponent("key-\(rows.count).sqlite").path
            let connection = try Connection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            try connection.execute(layout.createTable)
            try connection.execute("PRAGMA cache_size = -\(cacheBytes / 1_024)")
            let seconds = try BenchSupport.seconds {
                try connection.withDatabase { db in
                    let insert = try db.cachedStatement("INSERT INTO t (k, seq, payload) VALUES (?1, ?2, ?3)")
                    var done = 0
                    while done < count {
                        let end = min(count, done + 100_000)
                        try db.transaction {
                            for index in done..<end {
                                if layout == .blob {
                                    withUnsafeBytes(of: keys[index].uuid) { insert.bindBlob($0, at: 1) }
                                } else {
                                    insert.bind(keys[index].uuidString, at: 1)
                                }
                                insert.bind(Int64(index + 1), at: 2)
                                insert.bind(payload, at: 3)
                                try insert.run()

                            }
                        }
                        done = end
                    }
                    if layout == .textIndexAfter { try db.execute("CREATE UNIQUE INDEX t_k ON t (k)") }
                }
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let rate = Double(count) / seconds
            if layout == .text { textRate = rate }
            let pageSize = try connection.scalar("PRAGMA page_size")?.int64 ?? 4_096
            let indexPages =
                (try? connection.scalar("SELECT count(*) FROM dbstat WHERE name = ?1", [.text(layout.indexName)])?.int64)
                ?? nil
            let file = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_000_000
            rows.append([
                layout.label, BenchSupport.rate(count, seconds), String(format: "%.2f", rate / textRate),
                indexPages.map { "\(Int($0 * pageSize) / 1_000_000)" } ?? "n/a", "\(file)",
            ])
        }
        BenchSupport.printTable(
            "paywall-bench import --key-experiment — \(count) random keys, \(cacheBytes >> 20) MB cache "
                + "(the import's), 100k-row transactions in arrival order, each timed to its final checkpoint", rows)
    }
}
