import Foundation
import PaywallTestSupport
import Testing

/// `upload --max-batches N` says more events are pending only when some are: a run whose last
/// allowed batch carried the last event says nothing is pending. The built binary on both sides.
@Suite(.serialized)
struct UploadSummaryTests {
    @Test func theBatchLimitReachedWithTheLastEventSaysNothingIsPending() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(1_500))  // 3,000 events: three batches of 1,000
        let two = try await harness.upload(["--max-batches", "2"])
        #expect(two.status == 0, "\(two.stderr)")
        #expect(two.stdout.contains("more events are pending"), "\(two.stdout)")
        let one = try await harness.upload(["--max-batches", "1"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("uploaded 1000,"), "\(one.stdout)")
        #expect(one.stdout.contains("nothing is pending") && !one.stdout.contains("more events"), "\(one.stdout)")
    }
}
