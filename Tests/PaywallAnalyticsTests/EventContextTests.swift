import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// The context the library writes on every event: what it reads on the device, under the app's
/// overrides, stored with the events (catalog version 2).
struct EventContextTests {
    @Test func theDeviceContextIsReadFromTheProcessAndFitsTheCatalog() {
        let context = DeviceContext.current()
        #if os(Linux)
            #expect(context.platform == .server)
        #endif
        #expect(context.osVersion == DeviceContext.osVersion(ProcessInfo.processInfo.operatingSystemVersion))
        #expect(context.osVersion?.isEmpty == false)
        #expect(context.sdkVersion == ProductVersion.current)
        // Whatever it read validates in a version-2 event
        let event = PaywallShown(pwID: UUID(), source: "home").record(
            id: UUIDv7.make(milliseconds: 1_764_400_000_000), occurredAt: 1_764_400_000_000, userID: "u",
            context: context)
        #expect(EventValidator().validate(event).isEmpty)
    }

    @Test func versionsAndTagsAreSpelledAsTheCatalogWants() {
        #expect(
            DeviceContext.osVersion(OperatingSystemVersion(majorVersion: 17, minorVersion: 4, patchVersion: 1))
                == "17.4.1")
        #expect(
            DeviceContext.osVersion(OperatingSystemVersion(majorVersion: 14, minorVersion: 0, patchVersion: 0))
                == "14.0")
        #expect(DeviceContext.localeTag(Locale(identifier: "pt_BR")) == "pt-BR")
        // A value over the catalog's limit is left out, not cut
        #expect(DeviceContext.fitting(String(repeating: "1", count: 33), .osVersion) == nil)
        #expect(
            DeviceContext.fitting(String(repeating: "1", count: 32), .osVersion) == String(repeating: "1", count: 32))
        #expect(DeviceContext.fitting("", .appVersion) == nil)
    }

    @Test func theFacadeWritesTheDeviceContextUnderTheAppsOverridesOnEveryEvent() async throws {
        // Given the embedded stack with an app version and a platform given by the app, and one
        // override over the catalog's limit
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("context-\(UUID().uuidString).sqlite")
            .path
        let messages = Lock<[String]>([])
        let analytics = try PaywallAnalytics(
            configuration: .init(
                databasePath: path, forwarding: .off, impressionMode: .appReported,
                eventContext: EventContext(
                    appVersion: "3.2.0", platform: .android, osVersion: String(repeating: "9", count: 40))),
            environment: [:]
        ) { message in messages.withLock { $0.append(message) } }
        // When a presentation is recorded
        let paywall = try analytics.tracker.open(source: "settings", userID: "user_7")
        paywall.appeared()
        paywall.reportImpression()
        paywall.close(.dismissed(via: .closeButton))
        try await analytics.flush()
        // Then both stored events carry the overrides, the device's other values, catalog version 2
        let device = DeviceContext.current()
        let rows = try analytics.recorder.store.connection.all(
            "SELECT app_version, platform, os_version, sdk_version, CAST(catalog_version AS TEXT) FROM events ORDER BY seq"
        ) { row in [row.string(at: 0), row.string(at: 1), row.string(at: 2), row.string(at: 3), row.string(at: 4)] }
        #expect(rows.count == 2)
        for row in rows {
            #expect(row == ["3.2.0", "android", device.osVersion, ProductVersion.current, "2"])
        }
        // And the override that broke the limit was left out and named
        #expect(
            messages.withLock { $0 }.contains { $0.contains("eventContext os_version breaks the catalog's limits") })
        try await analytics.shutdown()
    }
}
