import Foundation
import PaywallCore
import PaywallSQLite

/// The suppression list of forgotten customers (`suppressions`, migration `store/privacy`): a
/// forgotten id stays forgotten. Each row holds SHA-256(salt ‖ user id) with a random 32-byte salt
/// of this store (`meta` key ``saltKey``), never the id, so the list cannot be read back into ids
/// without guessing them, and two stores' lists cannot be joined.
///
/// Every write path (the recorder, import, the collector's group commit) asks ``load(_:)`` once per
/// transaction; with an empty list (the usual case) that is one indexed probe and nothing else.
public struct Suppression: Sendable {
    /// `meta` key of the store's salt (64 lowercase hex digits).
    public static let saltKey = "privacy.suppression_salt"

    /// The salt the hashes are made with.
    let salt: [UInt8]
    /// The hashes of the forgotten ids.
    let hashes: Set<[UInt8]>

    /// SHA-256 of `salt` followed by the UTF-8 bytes of `userID`.
    public static func hash(_ userID: String, salt: [UInt8]) -> [UInt8] {
        var sha = SHA256()
        sha.update(salt)
        sha.update(Array(userID.utf8))
        return sha.finalize()
    }

    /// Whether `userID` is forgotten.
    func contains(_ userID: String) -> Bool {
        hashes.contains(Self.hash(userID, salt: salt))
    }

    /// Whether anyone is on the list (one indexed probe).
    static func anyForgotten(_ db: Database) throws -> Bool {
        let any = try db.cachedStatement("SELECT 1 FROM suppressions LIMIT 1")
        defer { any.reset() }
        return try any.step()
    }

    /// Whether one of `userIDs` is on the list (one probe per id; for a refused line's few ids).
    static func contains(anyOf userIDs: [String], _ db: Database) throws -> Bool {
        guard !userIDs.isEmpty, let salt = try existingSalt(db) else { return false }
        let probe = try db.cachedStatement("SELECT 1 FROM suppressions WHERE user_sha256 = ?1")
        defer { probe.reset() }
        for id in userIDs {
            probe.reset()
            probe.bind(Data(hash(id, salt: salt)), at: 1)
            if try probe.step() { return true }
        }
        return false
    }

    /// The suppression list, or `nil` when it is empty (nothing to check).
    static func load(_ db: Database) throws -> Suppression? {
        guard try anyForgotten(db) else { return nil }
        guard let salt = try existingSalt(db) else { return nil }
        let hashes = try db.all("SELECT user_sha256 FROM suppressions") { row in
            row.withUnsafeBlob(at: 0) { Array($0) }
        }
        return Suppression(salt: salt, hashes: Set(hashes))
    }

    /// The store's salt, if one was made.
    static func existingSalt(_ db: Database) throws -> [UInt8]? {
        guard let hex = try db.scalar("SELECT value FROM meta WHERE key = ?1", [.text(saltKey)])?.string else {
            return nil
        }
        return Self.bytes(hex: hex)
    }

    /// The store's salt, made (32 random bytes) and stored in `meta` the first time.
    static func makeSalt(_ db: Database) throws -> [UInt8] {
        if let salt = try existingSalt(db), salt.count == 32 { return salt }
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try db.run(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(saltKey), .text(SHA256.hex(salt))])
        return salt
    }

    /// Adds `userIDs` to the list (at `time`); returns how many were not on it yet.
    static func add(_ userIDs: [String], at time: Int64, _ db: Database) throws -> Int {
        let salt = try makeSalt(db)
        var added = 0
        for id in userIDs {
            added += try db.run(
                "INSERT INTO suppressions (user_sha256, since) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                [.blob(Data(hash(id, salt: salt))), .integer(time)])
        }
        return added
    }

    /// Removes `userIDs` from the list (`forget --allow-again`); returns how many were on it.
    static func remove(_ userIDs: [String], _ db: Database) throws -> Int {
        guard let salt = try existingSalt(db) else { return 0 }
        var removed = 0
        for id in userIDs {
            removed += try db.run(
                "DELETE FROM suppressions WHERE user_sha256 = ?1", [.blob(Data(hash(id, salt: salt)))])
        }
        return removed
    }

    /// Records `count` suppressed events at `time` (nothing when zero).
    static func recordSuppressed(_ count: Int, at time: Int64, _ db: Database) throws {
        guard count > 0 else { return }
        try db.run(
            "INSERT INTO suppressed_events (suppressed_at, count) VALUES (?1, ?2)",
            [.integer(time), .integer(Int64(count))])
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
