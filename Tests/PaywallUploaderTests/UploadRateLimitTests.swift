import Foundation
import PaywallTestSupport
import Testing

/// `upload` against a collector with `--key-rate`: a 429 is honoured as a 503 is: every event kept,
/// the cursor at what was acknowledged, uploading paused for the `Retry-After`, and the run after
/// the pause sends the rest. The built binary on both sides.
@Suite(.serialized)
struct UploadRateLimitTests {
    @Test func a429PausesUploadingAndTheNextRunAfterThePauseSendsTheRest() async throws {
        let harness = try UploadHarness(collectorArguments: ["--key-rate", "0.5"])
        try harness.record(DeviceEvents.presentations(1_250))
        let first = try await harness.upload()
        #expect(first.status == 69, "\(first.stdout) \(first.stderr)")
        #expect(first.stderr.contains("HTTP 429"), "\(first.stderr)")
        #expect(first.stderr.contains("paused until"), "\(first.stderr)")
        let acknowledged = harness.cursor
        #expect(acknowledged >= 1_000 && acknowledged < 2_500)
        // Runs during the pause send nothing; once it has passed, the rest goes
        let deadline = Date().addingTimeInterval(60)
        var last = first
        while Date() < deadline {
            last = try await harness.upload()
            if last.status == 0 { break }
            #expect(last.status == 69, "\(last.stderr)")
            #expect(harness.cursor >= acknowledged)
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 2_500)
        #expect(harness.cursor == (try harness.int(harness.device, "SELECT max(seq) FROM events")))
    }
}
