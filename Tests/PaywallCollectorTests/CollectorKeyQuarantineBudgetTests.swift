import Foundation
import PaywallTestSupport
import Testing

/// `serve --key-quarantine-bytes B`: the refused lines one write key has kept in the quarantine are
/// bounded (a bucket of B bytes refilled at B a day), so a holder of the public write key cannot
/// fill the disk through the quarantine; past it a request with refused lines is 429 with
/// `Retry-After` and nothing of it is stored (the client keeps it), requests without refused lines
/// and other keys go on. The built `serve`.
@Suite(.serialized)
struct CollectorKeyQuarantineBudgetTests {
    /// A distinct refused line of `bytes` bytes (not JSON).
    static func junk(_ tag: String, bytes: Int) -> String {
        String((tag + String(repeating: "x", count: bytes)).prefix(bytes))
    }

    @Test func aKeyPastItsQuarantineBudgetGets429AndStoresNothingOtherKeysGoOn() throws {
        let harness = try CollectorHarness(arguments: ["--key-quarantine-bytes", "4KiB"])
        let made = try harness.cli.runBlocking(["keys", "add", "android-app", "--db", harness.db])
        let other = made.stdout.trimmingCharacters(in: .newlines)
        // Given a request whose two refused lines (3,000 bytes) fit in the key's 4 KiB
        let first = EventLines.batch(pairs: 1)
        let accepted = try harness.post(
            EventLines.body(first.lines + [Self.junk("a1", bytes: 1_500), Self.junk("a2", bytes: 1_500)]))
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(accepted.json["quarantined"] as? Int == 2)
        // When the same key sends another 3,000 bytes of refused lines with a good presentation
        let second = EventLines.batch(pairs: 1)
        let refused = try harness.post(
            EventLines.body(second.lines + [Self.junk("b1", bytes: 1_500), Self.junk("b2", bytes: 1_500)]))
        // Then it is 429 with Retry-After, says what to do, and nothing of it is stored
        #expect(refused.status == 429, "\(refused.text)")
        #expect(Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1, "\(refused.headers)")
        #expect(refused.text.contains("--key-quarantine-bytes") && refused.text.contains("retry after"))
        #expect(!refused.text.contains(harness.key))
        #expect(try harness.storedIDs() == Set(first.ids))
        #expect(harness.quarantined == 2)
        // And a request with no refused line from that key, and the other key's refused lines, go on
        let clean = EventLines.batch(pairs: 1)
        #expect(try harness.post(EventLines.body(clean.lines)).status == 200)
        let otherKeys = try harness.post(EventLines.body([Self.junk("c1", bytes: 1_500)]), key: other)
        #expect(otherKeys.status == 200 && otherKeys.json["quarantined"] as? Int == 1, "\(otherKeys.text)")
        #expect(try harness.storedIDs() == Set(first.ids + clean.ids))
        #expect(harness.quarantined == 3)
        let metrics = try harness.get("/metrics").text
        #expect(
            metrics.contains("paywall_collector_quarantine_budget_refused_total{key=\"ios-app\"} 1\n"), "\(metrics)")
        #expect(!metrics.contains("quarantine_budget_refused_total{key=\"android-app\"}"))
        #expect(harness.server.stop().status == 0)
    }

    @Test(arguments: ["0", "-1", "abc", "2TiB"])
    func aBadBudgetIsAUsageError(value: String) throws {
        let folder = TemporaryDirectory(prefix: "collector-qbudget")
        let cli = try CommandRunner(product: "paywall-analytics")
        let db = folder.path("c.sqlite")
        #expect(try cli.runBlocking(["keys", "add", "k", "--db", db]).status == 0)
        let result = try cli.runBlocking([
            "serve", "--listen", "127.0.0.1:0", "--db", db, "--key-quarantine-bytes", value,
        ])
        #expect(result.status == 64 && result.stderr.contains("--key-quarantine-bytes"), "\(result.stderr)")
    }
}
