import Foundation
import PaywallTestSupport
import Testing

/// The built collector when the WAL cannot be flushed after a commit: the request is answered 503,
/// saying its events may be stored and should be resent, never 200.
struct CollectorSyncFailureTests {
    @Test func aWALThatCannotBeFlushedAnswers503SayingTheEventsMayBeStored() throws {
        // Given a collector that stored and flushed one batch
        let harness = try CollectorHarness()
        defer { harness.server.stop(SIGKILL) }
        let first = EventLines.batch(pairs: 2)
        #expect(try harness.post(EventLines.body(first.lines)).status == 200)
        // When its WAL file is removed under it (the syncer then finds no file to flush: a real
        // failure of the flush, as a vanished or broken disk gives one)
        try FileManager.default.removeItem(atPath: harness.db + "-wal")
        let second = EventLines.batch(pairs: 2)
        let reply = try harness.post(EventLines.body(second.lines))
        // Then the answer is 503 with Retry-After, saying the events may be stored and to resend
        #expect(reply.status == 503, "\(reply.status) \(reply.text)")
        #expect(reply.headers["retry-after"] == "5")
        #expect(reply.text.contains("could not flush its log to disk"), "\(reply.text)")
        #expect(reply.text.contains("resend it"), "\(reply.text)")
        // And the log says a sync failed, not a commit
        #expect(harness.server.stderrText.contains("a sync failed, its requests were answered 503"))
        #expect(!harness.server.stderrText.contains("a commit failed"))
    }
}
