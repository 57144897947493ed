import Foundation
import PaywallCollector
import PaywallCore
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `serve` and `keys` as an operator meets them: startup errors with a clear sentence and an exit code
/// of the tool's own, the key alone on stdout, revocation.
@Suite(.serialized)
struct CollectorStartupTests {
    @Test func keysAddPrintsTheKeyAloneAndTheStoreKeepsOnlyItsHash() throws {
        let folder = TemporaryDirectory(prefix: "collector-keys")
        let db = folder.path("central.sqlite")
        let cli = try CommandRunner(product: "paywall-analytics")
        let made = try cli.runBlocking(["keys", "add", "ios-app", "--db", db])
        #expect(made.status == 0)
        let key = made.stdout.trimmingCharacters(in: .newlines)
        #expect(made.stdout == key + "\n")
        #expect(key.hasPrefix("pwk_") && key.count == 68)
        #expect(made.stderr.contains("shown only this once"))
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        let stored = try connection.scalar("SELECT key_sha256 FROM write_keys WHERE name = 'ios-app'")?.string
        #expect(stored == SHA256.hex(SHA256.digest(key.utf8)))
        #expect(try cli.runBlocking(["keys", "add", "ios-app", "--db", db]).status == 64)
        #expect(try cli.runBlocking(["keys", "add", "bad name!", "--db", db]).status == 64)
        let list = try cli.runBlocking(["keys", "list", "--db", db])
        #expect(list.status == 0 && list.stdout.contains("ios-app\t") && list.stdout.contains("\tvalid"))
        #expect(!list.stdout.contains(key))
        #expect(try cli.runBlocking(["keys", "revoke", "ios-app", "--db", db]).status == 0)
        #expect(try cli.runBlocking(["keys", "revoke", "ios-app", "--db", db]).status == 65)
        #expect(try cli.runBlocking(["keys", "list", "--db", db]).stdout.contains("\trevoked 20"))
    }

    @Test func refusesToStartWithoutAWriteKey() throws {
        let folder = TemporaryDirectory(prefix: "collector-start")
        let cli = try CommandRunner(product: "paywall-analytics")
        let result = try cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", folder.path("central.sqlite")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("no write key") && result.stderr.contains("keys add NAME"))
    }

    @Test func refusesATakenPortWith75() throws {
        let harness = try CollectorHarness()
        // Another store (one collector per store is its own refusal, also 75), the port taken
        let other = harness.folder.path("other.sqlite")
        #expect(try harness.cli.runBlocking(["keys", "add", "k", "--db", other]).status == 0)
        let result = try harness.cli.runBlocking(["serve", "--listen", "127.0.0.1:\(harness.port)", "--db", other])
        #expect(result.status == 75)
        #expect(result.stderr.contains("already in use"), "\(result.stderr)")
    }

    @Test func refusesALockedDatabaseWith75() throws {
        let harness = try CollectorHarness()
        harness.server.stop()
        let locker = try Connection(path: harness.db)
        try locker.execute("BEGIN IMMEDIATE")
        defer { try? locker.execute("ROLLBACK") }
        let result = try harness.cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", harness.db])
        #expect(result.status == 75)
        #expect(result.stderr.contains("Error:"))
    }

    @Test(arguments: [
        ["--listen", "nonsense"], ["--listen", "127.0.0.1:99999"], ["--listen", "127.0.0.1:0", "--max-body", "lots"],
        ["--listen", "127.0.0.1:0", "--timeout", "0"], ["--listen", "127.0.0.1:0", "--queue", "-1"], [],
    ])
    func badFlagsAreUsageErrors(arguments: [String]) throws {
        let folder = TemporaryDirectory(prefix: "collector-flags")
        let cli = try CommandRunner(product: "paywall-analytics")
        let result = try cli.runBlocking(["serve", "--db", folder.path("central.sqlite")] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }
}
