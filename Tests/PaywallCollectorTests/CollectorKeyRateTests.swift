import Foundation
import PaywallTestSupport
import Testing

/// `serve --key-rate R`: each write key gets R requests per second with bursts of 2R; past that a
/// request is 429 with `Retry-After`, stores nothing and is counted per key name in `/metrics`;
/// other keys are not affected. The built `serve`.
@Suite(.serialized)
struct CollectorKeyRateTests {
    @Test func aKeyPastItsRateGets429WithRetryAfterAndOtherKeysDoNot() throws {
        let harness = try CollectorHarness(arguments: ["--key-rate", "0.2"])
        let made = try harness.cli.runBlocking(["keys", "add", "android-app", "--db", harness.db])
        let other = made.stdout.trimmingCharacters(in: .newlines)
        // A burst of 2 × 0.2, at least one request, then refusals
        let batches = (0..<3).map { _ in EventLines.batch(pairs: 1) }
        let first = try harness.post(EventLines.body(batches[0].lines))
        let second = try harness.post(EventLines.body(batches[1].lines))
        #expect(first.status == 200, "\(first.text)")
        #expect(second.status == 429, "\(second.text)")
        #expect(Int(second.headers["retry-after"] ?? "") ?? 0 >= 1, "\(second.headers)")
        #expect(second.text.contains("passed its rate of 0.2 requests per second"), "\(second.text)")
        #expect(!second.text.contains(harness.key))
        // Another key has its own bucket
        #expect(try harness.post(EventLines.body(batches[2].lines), key: other).status == 200)
        #expect(try harness.storedIDs() == Set(batches[0].ids + batches[2].ids))
        let metrics = try harness.get("/metrics").text
        #expect(metrics.contains("paywall_collector_rate_limited_total{key=\"ios-app\"} 1\n"), "\(metrics)")
        #expect(metrics.contains("paywall_collector_requests_total{route=\"/v1/events\",status=\"429\"} 1\n"))
        #expect(!metrics.contains("rate_limited_total{key=\"android-app\"}"))
    }

    @Test(arguments: ["0", "-1", "abc", "nan", "inf"])
    func aBadRateIsAUsageError(rate: String) throws {
        let folder = TemporaryDirectory(prefix: "collector-rate")
        let cli = try CommandRunner(product: "paywall-analytics")
        let db = folder.path("c.sqlite")
        #expect(try cli.runBlocking(["keys", "add", "k", "--db", db]).status == 0)
        let result = try cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", db, "--key-rate", rate])
        #expect(result.status == 64 && result.stderr.contains("--key-rate"), "\(result.stderr)")
    }
}
