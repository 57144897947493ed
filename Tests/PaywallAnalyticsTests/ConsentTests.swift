import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// `optOut()` and `optIn()` on the facade, against a real store and a loopback RevenueCat.
struct ConsentTests {
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("consent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func open(_ path: String, _ standIn: RevenueCatStandIn) throws -> PaywallAnalytics {
        try PaywallAnalytics(
            configuration: .init(
                databasePath: path, revenueCatAPIKey: "appl_ConsentTestKey42",
                revenueCatEndpoint: standIn.baseURL, forwardingInterval: .seconds(3_600),
                impressionMode: .appReported),
            environment: [:])
    }

    /// One presentation: an impression (app-reported) and a close.
    static func present(_ analytics: PaywallAnalytics, user: String) throws {
        let paywall = try analytics.tracker.open(source: "settings", userID: user)
        paywall.appeared()
        paywall.reportImpression()
        paywall.close(.dismissed(via: .closeButton))
    }

    @Test func optingOutDeletesWhatWasNotSentAndStopsRecordingAndForwardingAcrossRestarts() async throws {
        // Given an install that forwarded one impression, and has a second one RevenueCat could not take yet
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("app.sqlite").path
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        var analytics = try Self.open(path, standIn)
        try Self.present(analytics, user: "consent-user")
        try await analytics.flush()
        #expect(await Eventually.holds { standIn.acceptedEventIDs.count == 1 })
        standIn.respondByDefault { _, _ in .status(503, body: "{}") }
        try Self.present(analytics, user: "consent-user")
        try await analytics.flush()
        #expect(await Eventually.holds { standIn.requestCount >= 2 })
        let store = analytics.recorder.store
        let unsent = try store.connection.all(
            """
            SELECT id FROM events WHERE seq NOT IN (SELECT event_rowid FROM deliveries)
            UNION ALL SELECT DISTINCT pw_id FROM events
            WHERE pw_id NOT IN (SELECT e.pw_id FROM events AS e JOIN deliveries AS d ON d.event_rowid = e.seq)
            """
        ) { $0.string(at: 0)! }
        // the first close, the second presentation's impression and close, and that presentation's id
        #expect(unsent.count == 4)

        // When the customer opts out
        let report = try await analytics.optOut()
        // Then what was not sent is deleted, and no byte of the files holds those events' ids
        #expect(report.events == 3 && report.rows(in: "outbox") == 1)
        #expect(try store.stats().totalEvents == 1 && store.stats().outboxDelivered == 1)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
            for id in unsent { #expect(bytes.range(of: Data(id.utf8)) == nil, "\(id) is in \(file)") }
        }
        // And the tracker keeps working, but nothing is recorded (counted as opted out, not dropped) or sent
        standIn.respondByDefault { _, _ in .status(200, body: "{}") }
        let requests = standIn.requestCount
        try Self.present(analytics, user: "consent-user")
        try await analytics.flush()
        #expect(analytics.isOptedOut)
        #expect(analytics.optedOutCalls == 2 && analytics.recorder.droppedCount == 0)
        #expect(try store.stats().totalEvents == 1)
        let pass = try await analytics.forwarding?.forwardOnce()
        #expect(pass == .completed(ForwardingSummary()))
        #expect(await analytics.suspend().committed)
        #expect(standIn.requestCount == requests)

        // When the app restarts, the choice holds
        try await analytics.shutdown()
        analytics = try Self.open(path, standIn)
        #expect(analytics.isOptedOut)
        try Self.present(analytics, user: "consent-user")
        try await analytics.flush()
        #expect(try analytics.optedOutCalls == 2 && analytics.recorder.store.stats().totalEvents == 1)

        // When the customer opts in again, recording and forwarding resume
        try analytics.optIn()
        try Self.present(analytics, user: "consent-user")
        try await analytics.flush()
        #expect(!analytics.isOptedOut)
        #expect(try analytics.recorder.store.stats().totalEvents == 3)
        // (The 503s above paused RevenueCat as a whole for a random backoff, which may not be over yet:
        // the loop's passes send nothing before it ends, so the test asks for a pass until it has.)
        let deadline = ContinuousClock.now.advanced(by: Eventually.patience)
        var delivered = false
        while !delivered, ContinuousClock.now < deadline {
            delivered = standIn.acceptedEventIDs.count == 2
            if !delivered {
                analytics.forwarding?.trigger()
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(delivered, "the impression recorded after opting in was never forwarded")
        try await analytics.shutdown()
        let reopened = try Self.open(path, standIn)
        #expect(!reopened.isOptedOut)
        try await reopened.shutdown()
    }
}
