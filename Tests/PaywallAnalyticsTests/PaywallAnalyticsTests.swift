import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct PaywallAnalyticsTests {
    static func scratchPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("facade-\(UUID().uuidString).sqlite").path
    }

    @Test func aFlushCommitsThenForwardsTheImpressionToRevenueCat() async throws {
        // Given the embedded stack pointed at a loopback RevenueCat, with a long interval
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let path = Self.scratchPath()
        let analytics = try PaywallAnalytics(
            configuration: .init(
                databasePath: path, revenueCatAPIKey: "appl_FacadeTestKey42",
                revenueCatEndpoint: standIn.baseURL, forwardingInterval: .seconds(3_600),
                impressionMode: .appReported),
            environment: [:])
        // When a presentation makes an impression and the app flushes
        let paywall = try analytics.tracker.open(source: "settings", userID: "user_7")
        paywall.appeared()
        paywall.reportImpression()
        paywall.close(.dismissed(via: .closeButton))
        try await analytics.flush()
        // Then the events are stored and the impression reaches RevenueCat without waiting an hour
        #expect(await Eventually.holds { !standIn.acceptedEventIDs.isEmpty })
        #expect(standIn.acceptedEventIDs.count == 1)
        #expect(standIn.violations.isEmpty)
        let stats = try analytics.recorder.store.stats()
        #expect(stats.totalEvents == 2)
        try await analytics.shutdown()
    }

    @Test func aRefusedKeyIsReportedThroughTheDiagnostics() async throws {
        // Given the embedded stack and a RevenueCat that refuses the key (401)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, _ in .status(401, body: "{\"message\":\"invalid key\"}") }
        let messages = Lock<[String]>([])
        let analytics = try PaywallAnalytics(
            configuration: .init(
                databasePath: Self.scratchPath(), revenueCatAPIKey: "appl_FacadeTestKey42",
                revenueCatEndpoint: standIn.baseURL, forwardingInterval: .seconds(3_600),
                impressionMode: .appReported),
            environment: [:]
        ) { message in messages.withLock { $0.append(message) } }
        // When an impression is flushed and forwarded
        let paywall = try analytics.tracker.open(source: "settings", userID: "user_7")
        try paywall.reportImpression()
        try await analytics.flush()
        let refused = { messages.withLock { $0 }.first { $0.contains("refused the API key") } }
        #expect(await Eventually.holds { refused() != nil })
        // Then the app hears that the key was refused and how many impressions went to the dead letters
        #expect(
            refused()?.contains("RevenueCat refused the API key (HTTP 401): 1 impression went to the dead letters")
                == true,
            "\(messages.withLock { $0 })")
        #expect(messages.withLock { $0 }.allSatisfy { !$0.contains("appl_FacadeTestKey42") })
        try await analytics.shutdown()
    }

    @Test func withoutAKeyForwardingIsOffSaidOnceAndNothingIsLost() async throws {
        let messages = Lock<[String]>([])
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: Self.scratchPath(), impressionMode: .appReported),
            environment: ["REVENUECAT_API_KEY": "YOUR_REVENUECAT_API_KEY_HERE"]
        ) { message in
            messages.withLock { $0.append(message) }
        }
        #expect(analytics.forwarding == nil)
        #expect(messages.withLock { $0 }.count == 1)
        #expect(messages.withLock { $0 }.first?.contains("REVENUECAT_API_KEY") == true)
        let paywall = try analytics.tracker.open(source: "onboarding", userID: "u")
        paywall.reportImpression()
        try await analytics.flush()
        #expect(try analytics.recorder.store.stats().outboxPending == 1)
        try await analytics.shutdown()
    }

    @Test func aFileThatIsNotADatabaseIsRefusedWithATypedErrorAndLeftUntouched() throws {
        let path = Self.scratchPath()
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: StorageError.self) {
            _ = try PaywallAnalytics(configuration: .init(databasePath: path), environment: [:])
        }
        #expect(error.kind == .corrupt)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }
}
