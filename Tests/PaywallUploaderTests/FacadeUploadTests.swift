import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import PaywallUploader
import RevenueCatForwarder
import Testing

/// The facade configured with a collector, against the built collector on 127.0.0.1.
@Suite(.serialized)
struct FacadeUploadTests {
    func analytics(
        _ harness: UploadHarness, forwarding: PaywallAnalytics.Forwarding = .off, writeKey: String? = nil,
        environment: [String: String] = [:], retention: Duration = .seconds(7 * 24 * 3600),
        revenueCat: URL? = nil, messages: Lock<[String]> = Lock([])
    ) throws -> PaywallAnalytics {
        var configuration = PaywallAnalytics.Configuration(
            databasePath: harness.device, forwarding: forwarding,
            forwardingInterval: .seconds(3_600))
        if let revenueCat { configuration.revenueCatEndpoint = revenueCat }
        configuration.collector = PaywallAnalytics.CollectorConfiguration(
            endpoint: URL(string: harness.endpoint)!, writeKey: writeKey, uploadInterval: .seconds(3_600),
            retention: retention)
        return try PaywallAnalytics(configuration: configuration, environment: environment) { message in
            messages.withLock { $0.append(message) }
        }
    }

    @Test func flushUploadsEveryRecordedEventAndTheCollectorForwardsWhenTheAppDoesNot() async throws {
        // Given an app that does not forward to RevenueCat itself, configured with a collector
        let harness = try UploadHarness()
        let analytics = try analytics(harness, writeKey: harness.key)
        #expect(analytics.uploadStatus == .on(endpoint: URL(string: harness.endpoint)!, forwarding: .collector))
        // When it records 300 presentations and flushes
        let events = DeviceEvents.presentations(300)
        for event in events { analytics.recorder.record(event) }
        try await analytics.flush()
        // Then every event reaches the central store, and its impressions wait in the collector's outbox
        #expect(try await Eventually.holds { try harness.int(harness.central, "SELECT count(*) FROM events") == 600 })
        #expect(Set(try harness.ids(harness.central)) == Set(events.map(\.id.uuidString)))
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 300)
        #expect(try await Eventually.holds { try harness.int(harness.device, "SELECT count(*) FROM outbox") == 0 })
        try await analytics.shutdown()
        #expect(harness.placesHolding(harness.key).isEmpty, "\(harness.placesHolding(harness.key))")
    }

    @Test func optOutStopsTheUploaderAndDeletesOnlyWhatWasNotUploaded() async throws {
        // Given an app configured with a collector that uploaded 100 presentations, and 20 more stored
        // on the device but not uploaded yet
        let harness = try UploadHarness()
        let analytics = try analytics(harness, writeKey: harness.key)
        for event in DeviceEvents.presentations(100) { analytics.recorder.record(event) }
        try await analytics.flush()
        #expect(try await Eventually.holds { try harness.int(harness.central, "SELECT count(*) FROM events") == 200 })
        #expect(
            try await Eventually.holds {
                try harness.cursor == harness.int(harness.device, "SELECT max(seq) FROM events")
            })
        let notUploaded = DeviceEvents.presentations(20, user: "not-uploaded-customer")
        try EventStore(path: harness.device, now: .system).insert(notUploaded)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM events") == 240)
        // When the customer opts out
        try await analytics.optOut()
        // Then the 40 events after the upload cursor are gone from every byte of the device's files, the
        // 200 uploaded ones stay, and nothing more is uploaded (an upload pass sends nothing)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM events") == 200)
        #expect(
            try harness.int(harness.device, "SELECT count(*) FROM events WHERE user_id = 'not-uploaded-customer'") == 0)
        for event in notUploaded.prefix(3) {
            #expect(harness.placesHolding(event.id.uuidString).isEmpty, "\(harness.placesHolding(event.id.uuidString))")
        }
        for event in DeviceEvents.presentations(5) { analytics.recorder.record(event) }
        try await analytics.flush()
        let pass = try await #require(analytics.uploading).runOnce()
        #expect(pass == .completed(DeliveryReport()), "an opted-out pass sends nothing")
        #expect(analytics.optedOutCalls == 10)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 200)
        // And after opting in again, new events are recorded and uploaded
        try analytics.optIn()
        let later = DeviceEvents.presentations(5)
        for event in later { analytics.recorder.record(event) }
        try await analytics.flush()
        #expect(try await Eventually.holds { try harness.int(harness.central, "SELECT count(*) FROM events") == 210 })
        #expect(Set(try harness.ids(harness.central)).isSuperset(of: later.map(\.id.uuidString)))
        try await analytics.shutdown()
    }

    @Test func suspendUploadsWithinItsBudgetBesideTheForwarder() async throws {
        // Given an app that forwards to RevenueCat itself, with the key from the environment
        let harness = try UploadHarness()
        let revenueCat = try RevenueCatStandIn()
        defer { revenueCat.stop() }
        let analytics = try analytics(
            harness, forwarding: .http,
            environment: [
                "PAYWALL_COLLECTOR_KEY": harness.key,
                "REVENUECAT_API_KEY": "appl_FacadeUploadKey123",
            ],
            revenueCat: revenueCat.baseURL)
        #expect(analytics.uploadStatus == .on(endpoint: URL(string: harness.endpoint)!, forwarding: .device))
        // (the loops' first passes, run at start over an empty store, are over before the app records:
        // a pass of the app's suspend would find the lease held by one of them, and send nothing)
        #expect(
            await Eventually.holds {
                (analytics.uploading?.passesRun ?? 0) >= 1 && (analytics.forwarding?.passesRun ?? 0) >= 1
            })
        let events = DeviceEvents.presentations(50)
        for event in events { analytics.recorder.record(event) }
        // When the app goes to the background
        let report = await analytics.suspend(budget: .seconds(20))
        // Then both ran within the budget: the device delivered its impressions, the collector holds the
        // events and records those impressions as forwarded by the device (never sent twice)
        #expect(report.committed && !report.budgetExhausted)
        #expect(try await Eventually.holds { try harness.int(harness.central, "SELECT count(*) FROM events") == 100 })
        #expect(try harness.int(harness.central, "SELECT count(*) FROM deliveries WHERE by_device = 1") == 50)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 0)
        #expect(try await Eventually.holds { Set(revenueCat.acceptedEventIDs.keys).count == 50 })
        try await analytics.shutdown()
    }

    @Test func aMissingKeyTurnsUploadingOffAndSaysWhy() async throws {
        let harness = try UploadHarness(startCollector: false)
        let messages = Lock<[String]>([])
        let analytics = try analytics(harness, messages: messages)
        guard case .off(let reason) = analytics.uploadStatus else {
            Issue.record("uploading should be off without a key")
            return
        }
        #expect(reason.contains("PAYWALL_COLLECTOR_KEY") && reason.contains("keys add NAME"), "\(reason)")
        #expect(messages.withLock { $0 }.contains(reason))
        #expect(analytics.uploading == nil)
        try await analytics.shutdown()
    }

    @Test func withoutACollectorUploadingIsOffByChoiceAndSilent() async throws {
        let harness = try UploadHarness(startCollector: false)
        let messages = Lock<[String]>([])
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: harness.device, forwarding: .off),
            environment: [:]
        ) { message in messages.withLock { $0.append(message) } }
        guard case .off(let reason) = analytics.uploadStatus else {
            Issue.record("uploading should be off without a collector")
            return
        }
        #expect(reason.contains("no collector is configured"))
        #expect(messages.withLock { $0 }.isEmpty)
        try await analytics.shutdown()
    }

    @Test func uploadedAndDoneEventsArePrunedAfterTheUploadButNeverThePendingOnes() async throws {
        // Given an app with a zero retention
        let harness = try UploadHarness()
        let analytics = try analytics(harness, writeKey: harness.key, retention: .zero)
        for event in DeviceEvents.presentations(100) { analytics.recorder.record(event) }
        try await analytics.flush()
        // Then once uploaded, all but the highest seq are deleted from the device, and stats counts them
        #expect(try await Eventually.holds { try harness.int(harness.device, "SELECT count(*) FROM events") == 1 })
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 200)
        #expect(try analytics.recorder.store.stats().deletedByRetention == 199)
        try await analytics.shutdown()
    }
}
