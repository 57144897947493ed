import Foundation
import PaywallCore
import PaywallSQLite

/// The collector's named keys (`write_keys`, created by ``Collector/migrations``, `collector/write-keys`
/// and `collector/key-kinds`): write keys for app installs (`POST /v1/events`) and webhook secrets for
/// RevenueCat (`POST /v1/revenuecat/webhooks`). A key is shown once, when it is made, and only its
/// SHA-256 is stored; `revoke` refuses it from the next request on (the collector looks every
/// request's key up, so no restart is needed). A key of one kind never opens the other's route.
///
/// ```swift
/// let keys = WriteKeys(connection: store.connection, now: .system)
/// let key = try keys.add(name: "ios-app")       // "pwk_3f9c…", give it to the app's uploader
/// try keys.name(forKey: key)                    // "ios-app"
/// let secret = try keys.add(name: "revenuecat", kind: .webhook)  // "pwh_…", paste into RevenueCat
/// try keys.webhookName(forAuthorization: secret)                 // "revenuecat"
/// try keys.revoke(name: "ios-app")
/// ```
public struct WriteKeys: Sendable {
    /// What a key opens.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A write key: `POST /v1/events`, sent as `Authorization: Bearer <key>`.
        case write
        /// A RevenueCat webhook secret: `POST /v1/revenuecat/webhooks`, sent as the whole
        /// `Authorization` value or as `Bearer <secret>`.
        case webhook

        /// The prefix of every key of this kind (so a leaked one is recognisable).
        public var prefix: String { self == .write ? WriteKeys.prefix : WriteKeys.webhookPrefix }
    }

    /// One key as `keys list` shows it (never the key itself).
    public struct Entry: Sendable, Hashable {
        /// The key's name (metrics and quarantine origins use it).
        public var name: String
        /// What it opens.
        public var kind: Kind = .write
        /// When it was made, Unix milliseconds.
        public var createdAt: Int64
        /// When it was revoked, Unix milliseconds, or `nil` while it is valid.
        public var revokedAt: Int64?
    }

    /// The prefix of every write key (so a leaked one is recognisable, e.g. by secret scanners).
    public static let prefix = "pwk_"
    /// The prefix of every webhook secret.
    public static let webhookPrefix = "pwh_"

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

    /// Makes a new random key of `kind` named `name` and returns it (the only time it is ever visible).
    ///
    /// - Throws: ``WriteKeyError`` (`.invalidName`, `.nameTaken`: names are shared by both kinds) or
    ///   `StorageError`.
    public func add(name: String, kind: Kind = .write) throws -> String {
        guard Self.isValidName(name) else { throw WriteKeyError.invalidName(name) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = kind.prefix + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let time = now.milliseconds()
        try connection.transaction { db in
            if try db.int64("SELECT count(*) FROM write_keys WHERE name = ?1", [.text(name)]) != 0 {
                throw WriteKeyError.nameTaken(name)
            }
            _ = try db.run(
                "INSERT INTO write_keys (name, key_sha256, created_at, kind) VALUES (?1, ?2, ?3, ?4)",
                [.text(name), .text(Self.digest(key)), .integer(time), .text(kind.rawValue)])
        }
        return key
    }

    /// Every key, valid and revoked, by name (none in a store the collector's migrations never ran on).
    public func list() throws -> [Entry] {
        guard try connection.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'write_keys'")?.int64 == 1 else {
            return []
        }
        return try connection.all("SELECT name, created_at, revoked_at, kind FROM write_keys ORDER BY name") { row in
            Entry(
                name: row.string(at: 0) ?? "", kind: Kind(rawValue: row.string(at: 3) ?? "") ?? .write,
                createdAt: row.int64(at: 1), revokedAt: row.optionalInt64(at: 2))
        }
    }

    /// How many keys of either kind are valid (not revoked).
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

    /// The name of the valid write key `key`, or `nil` when it is unknown, revoked, or a webhook secret.
    public func name(forKey key: String) throws -> String? {
        guard key.hasPrefix(Self.prefix), key.utf8.count <= 256 else { return nil }
        return try connection.scalar(
            "SELECT name FROM write_keys WHERE key_sha256 = ?1 AND revoked_at IS NULL AND kind = 'write'",
            [.text(Self.digest(key))])?.string
    }

    /// The name of the valid webhook secret that the `Authorization` value `header` carries (the
    /// whole value, or `Bearer <secret>`), or `nil` when it carries none (a write key included).
    ///
    /// The value's SHA-256 is compared with every valid secret's, each in constant time and all of
    /// them every time, so the time taken says nothing of how close a guess came.
    public func webhookName(forAuthorization header: String) throws -> String? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty, value.utf8.count <= 512 else { return nil }
        var candidates = [SHA256.digest(value.utf8)]
        let bearer = "bearer "
        if value.utf8.count > bearer.utf8.count, value.prefix(bearer.count).lowercased() == bearer {
            candidates.append(SHA256.digest(value.dropFirst(bearer.count).trimmingCharacters(in: .whitespaces).utf8))
        }
        let secrets = try connection.all(
            "SELECT name, key_sha256 FROM write_keys WHERE kind = 'webhook' AND revoked_at IS NULL ORDER BY name"
        ) { row in (row.string(at: 0) ?? "", row.string(at: 1) ?? "") }
        var found: String?
        for (name, stored) in secrets {
            let storedBytes = Array(stored.utf8)
            for candidate in candidates where Self.constantTimeEqual(Array(SHA256.hex(candidate).utf8), storedBytes) {
                found = found ?? name
            }
        }
        return found
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
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
