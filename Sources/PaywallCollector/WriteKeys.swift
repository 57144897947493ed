import Foundation
import PaywallCore
import PaywallSQLite

/// The collector's named write keys (`write_keys`, created by ``Collector/migrations``, `collector/write-keys`): a key is
/// shown once, when it is made, and only its SHA-256 is stored; `revoke` refuses it from the next
/// request on (the collector looks every request's key up, so no restart is needed).
///
/// ```swift
/// let keys = WriteKeys(connection: store.connection, now: .system)
/// let key = try keys.add(name: "ios-app")       // "pwk_3f9c…", give it to the app's uploader
/// try keys.name(forKey: key)                    // "ios-app"
/// try keys.revoke(name: "ios-app")
/// ```
public struct WriteKeys: Sendable {
    /// One key as `keys list` shows it (never the key itself).
    public struct Entry: Sendable, Hashable {
        /// The key's name (metrics and quarantine origins use it).
        public var name: String
        /// When it was made, Unix milliseconds.
        public var createdAt: Int64
        /// When it was revoked, Unix milliseconds, or `nil` while it is valid.
        public var revokedAt: Int64?
    }

    /// The prefix of every key (so a leaked one is recognisable, e.g. by secret scanners).
    public static let prefix = "pwk_"

    /// The store's connection (the table is created by the store's migrations).
    public let connection: Connection
    /// Where creation and revocation times come from.
    public let now: Now

    /// Creates access to the keys of the store behind `connection`.
    public init(connection: Connection, now: Now) {
        self.connection = connection
        self.now = now
    }

    /// Whether `name` can name a key: 1–64 characters of `A–Z a–z 0–9 . _ -`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                $0 == 0x2E || $0 == 0x5F || $0 == 0x2D || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }

    /// Makes a new random key named `name` and returns it (the only time it is ever visible).
    ///
    /// - Throws: ``WriteKeyError`` (`.invalidName`, `.nameTaken`) or `StorageError`.
    public func add(name: String) throws -> String {
        guard Self.isValidName(name) else { throw WriteKeyError.invalidName(name) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = Self.prefix + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let time = now.milliseconds()
        try connection.transaction { db in
            if try db.int64("SELECT count(*) FROM write_keys WHERE name = ?1", [.text(name)]) != 0 {
                throw WriteKeyError.nameTaken(name)
            }
            _ = try db.run(
                "INSERT INTO write_keys (name, key_sha256, created_at) VALUES (?1, ?2, ?3)",
                [.text(name), .text(Self.digest(key)), .integer(time)])
        }
        return key
    }

    /// Every key, valid and revoked, by name (none in a store the collector's migrations never ran on).
    public func list() throws -> [Entry] {
        guard try connection.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'write_keys'")?.int64 == 1 else {
            return []
        }
        return try connection.all("SELECT name, created_at, revoked_at FROM write_keys ORDER BY name") { row in
            Entry(name: row.string(at: 0) ?? "", createdAt: row.int64(at: 1), revokedAt: row.optionalInt64(at: 2))
        }
    }

    /// How many keys are valid (not revoked).
    public func validCount() throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM write_keys WHERE revoked_at IS NULL")?.int64 ?? 0)
    }

    /// Refuses the key named `name` from now on.
    ///
    /// - Throws: ``WriteKeyError`` `.unknownName` when there is no valid key of that name.
    public func revoke(name: String) throws {
        let changed = try connection.run(
            "UPDATE write_keys SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
            [.text(name), .integer(now.milliseconds())])
        if changed == 0 { throw WriteKeyError.unknownName(name) }
    }

    /// The name of the valid key `key`, or `nil` when it is unknown or revoked.
    public func name(forKey key: String) throws -> String? {
        guard key.hasPrefix(Self.prefix), key.utf8.count <= 256 else { return nil }
        return try connection.scalar(
            "SELECT name FROM write_keys WHERE key_sha256 = ?1 AND revoked_at IS NULL",
            [.text(Self.digest(key))])?.string
    }

    /// The stored form of `key`: its SHA-256 in lowercase hex.
    static func digest(_ key: String) -> String { SHA256.hex(SHA256.digest(key.utf8)) }
}

/// Why a write-key command failed.
public enum WriteKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is not 1–64 characters of `A–Z a–z 0–9 . _ -`.
    case invalidName(String)
    /// A key (valid or revoked) already has this name.
    case nameTaken(String)
    /// No valid key has this name.
    case unknownName(String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .invalidName:
            return "a key name is 1 to 64 characters of letters, digits, '.', '_' and '-' (for example ios-app)"
        case .nameTaken(let name):
            return
                "a key named '\(name)' exists already (names are never reused, even once revoked); choose another name"
        case .unknownName(let name):
            return "there is no valid key named '\(name)'; `keys list` shows the names"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
