import Foundation
import PaywallSQLite

/// `paywall-bench import --key-experiment`: what a 16-byte BLOB id would give over the 36-byte
/// text id, measured on the key alone. The same random UUIDv4 keys go into two tables of the same
/// shape (`k UNIQUE, seq INTEGER PRIMARY KEY, payload`), one as text, one as BLOB, in transactions of
/// 10,000 rows inserted in key order with `seq` given in arrival order, with the same page cache.
enum ImportKeyExperiment {
    /// The UUID's bytes as a big-endian integer (the order of its canonical text).
    static func key(_ uuid: UUID) -> UInt128 {  // floors: ok
        withUnsafeBytes(of: uuid.uuid) { bytes in
            UInt128(UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))) << 64  // floors: ok
                | UInt128(UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))  // floors: ok
        }
    }

    static func run(count: Int, cacheBytes: Int) throws {
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var rows: [[String]] = [["key", "rows/s", "id index MB", "file MB"]]
        for blob in [false, true] {
            let path = directory.appendingPathComponent(blob ? "blob.sqlite" : "text.sqlite").path
            let connection = try Connection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            try connection.execute(
                blob
                    ? "CREATE TABLE t (k BLOB NOT NULL UNIQUE, seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)"
                    : "CREATE TABLE t (k TEXT NOT NULL UNIQUE, seq INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
            try connection.execute("PRAGMA cache_size = -\(cacheBytes / 1_024)")
            var generator = SystemRandomNumberGenerator()
            var seq: Int64 = 0
            let payload = String(repeating: "x", count: 220)
            let seconds = try BenchSupport.seconds {
                var done = 0
                while done < count {
                    let size = min(10_000, count - done)
                    var keys = (0..<size).map { _ in (UUID(), Int64(0)) }
                    for index in keys.indices {
                        seq += 1
                        keys[index].1 = seq
                    }
                    keys.sort { key($0.0) < key($1.0) }
                    try connection.withDatabase { db in
                        try db.transaction {
                            let insert = try db.cachedStatement("INSERT INTO t (k, seq, payload) VALUES (?1, ?2, ?3)")
                            for (key, rowSeq) in keys {
                                if blob {
                                    withUnsafeBytes(of: key.uuid) { insert.bindBlob($0, at: 1) }
                                } else {
                                    insert.bind(key.uuidString, at: 1)
                                }
                                insert.bind(rowSeq, at: 2)
                                insert.bind(payload, at: 3)
                                try insert.run()
                            }
                        }
                    }
                    _ = generator.next()
                    done += size
                }
            }
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let pageSize = try connection.scalar("PRAGMA page_size")?.int64 ?? 4_096
            let indexPages =
                (try? connection.scalar("SELECT count(*) FROM dbstat WHERE name = 'sqlite_autoindex_t_1'")?.int64)
                ?? nil
            let file = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_000_000
            rows.append([
                blob ? "16-byte BLOB" : "36-byte text", BenchSupport.rate(count, seconds),
                indexPages.map { "\(Int($0 * pageSize) / 1_000_000)" } ?? "n/a", "\(file)",
            ])
        }
        BenchSupport.printTable(
            "paywall-bench import --key-experiment — \(count) random keys, "
                + "\(cacheBytes >> 20) MB cache, sorted 10k-row transactions", rows)
    }
}
