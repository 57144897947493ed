import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallCollector

/// Webhook secrets in the keys table: a store made before key kinds existed keeps its keys as
/// write keys, and each kind answers only for its own route.
struct WebhookSecretTests {
    @Test func keysMadeBeforeKindsExistedStayWriteKeysAndOpenOnlyTheEventsRoute() throws {
        let folder = TemporaryDirectory(prefix: "key-kinds")
        let path = folder.path("central.sqlite")
        // A store as the collector's first migration alone left it, with one key.
        let before = MigrationGroup(owner: "collector", Array(Collector.migrations.migrations.prefix(1)))
        let key: String
        do {
            let old = try Schema.open(path: path, registering: [before])
            key = WriteKeys.prefix + String(repeating: "ab", count: 32)
            _ = try old.run(
                "INSERT INTO write_keys (name, key_sha256, created_at) VALUES ('ios-app', ?1, 1)",
                [.text(SHA256.hex(SHA256.digest(key.utf8)))])
        }
        let connection = try Schema.open(path: path, registering: [Collector.migrations])
        let keys = WriteKeys(connection: connection, now: .system)
        #expect(try keys.list().map(\.kind) == [.write])
        #expect(try keys.name(forKey: key) == "ios-app")
        #expect(try keys.webhookName(forAuthorization: key) == nil)
        #expect(try keys.webhookName(forAuthorization: "Bearer \(key)") == nil)
        let secret = try keys.add(name: "revenuecat", kind: .webhook)
        #expect(secret.hasPrefix(WriteKeys.webhookPrefix))
        #expect(try keys.webhookName(forAuthorization: secret) == "revenuecat")
        #expect(try keys.webhookName(forAuthorization: " Bearer \(secret)") == "revenuecat")
        #expect(try keys.name(forKey: secret) == nil)
        #expect(try keys.list().map(\.kind) == [.write, .webhook])
        #expect(try keys.validCount() == 2)
        // A kind the table does not know is refused by the database itself.
        #expect(throws: (any Error).self) {
            try connection.run(
                "INSERT INTO write_keys (name, key_sha256, created_at, kind) VALUES ('x', 'y', 1, 'admin')")
        }
    }

    @Test func theComparisonIsOverWholeDigestsOfEqualLength() {
        #expect(WriteKeys.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!WriteKeys.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!WriteKeys.constantTimeEqual(Array("abc".utf8), Array("ab".utf8)))
        #expect(!WriteKeys.constantTimeEqual(Array("xbc".utf8), Array("abc".utf8)))
    }
}
