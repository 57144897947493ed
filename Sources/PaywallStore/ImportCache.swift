import Foundation
import PaywallSQLite

/// SQLite's page cache for bulk work: during an import it is sized from the store and the input,
/// within bounds, and put back afterwards. The id index takes one random write per new event;
/// with SQLite's default 2 MB cache almost each of those reads and spills an index page.
public enum ImportCache {
    /// The least cache an import uses (the default 2 MB is less).
    public static let minimumBytes = 16 << 20
    /// The most cache an import uses, whatever the store's size: it keeps the import's peak memory
    /// under 300 MB with the pipeline's buffers (measured at 10M random ids: 239 MB with 160 MiB,
    /// 286 MB with 200 MiB, which took 176 s instead of 191 s).
    public static let maximumBytes = 192 << 20

    /// Cache bytes for importing `inputBytes` (`nil`: unknown, standard input) into a store file of
    /// `storeBytes`: about the id index after the import (a fifth of the store and the input),
    /// clamped to ``minimumBytes``…``maximumBytes``.
    public static func bytes(storeBytes: Int64, inputBytes: Int64?) -> Int {
        let index = indexBytes(storeBytes: storeBytes, inputBytes: inputBytes)
        return Int(min(Int64(maximumBytes), max(Int64(minimumBytes), index)))
    }

    /// About the size of the id index after importing `inputBytes` (`nil`: unknown, taken as large)
    /// into a store file of `storeBytes`: a fifth of both (measured: 57 MB of index in a 257 MB store
    /// of 1M events from 300 MB of NDJSON).
    public static func indexBytes(storeBytes: Int64, inputBytes: Int64?) -> Int64 {
        guard let inputBytes else { return Int64.max / 2 }
        return (storeBytes + inputBytes) / 5
    }

    /// Runs `body` with the connection's page cache at `bytes` (unchanged when 0), then restores it.
    static func with<T>(_ connection: Connection, bytes: Int, _ body: () throws -> T) throws -> T {
        guard bytes > 0 else { return try body() }
        let previous = try connection.withDatabase { try setCache($0, bytes: bytes) }
        defer { try? connection.withDatabase { db in try db.execute("PRAGMA cache_size = \(previous)") } }
        return try body()
    }

    /// ``with(_:bytes:_:)`` on a database in use (inside a transaction).
    static func with<T>(_ db: Database, bytes: Int, _ body: () throws -> T) throws -> T {
        guard bytes > 0 else { return try body() }
        let previous = try setCache(db, bytes: bytes)
        defer { try? db.execute("PRAGMA cache_size = \(previous)") }
        return try body()
    }

    /// Sets the page cache to `bytes`; the setting it had.
    private static func setCache(_ db: Database, bytes: Int) throws -> Int64 {
        let previous = try db.int64("PRAGMA cache_size") ?? -2_000
        try db.execute("PRAGMA cache_size = -\(bytes / 1_024)")
        return previous
    }

    /// The size of the file at `path`, when it is a regular file.
    static func fileBytes(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
