import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// `paywall-analytics upload` as a user runs it, against the built collector on 127.0.0.1.
@Suite(.serialized)
struct UploadCommandTests {
    @Test func uploadsEveryEventOnceInSeqOrderAndThenHasNothingToSend() async throws {
        // Given 1,250 presentations (2,500 events) recorded on a device
        let harness = try UploadHarness()
        let events = try harness.record(DeviceEvents.presentations(1_250))
        // When it uploads, then uploads again
        let first = try await harness.upload()
        let second = try await harness.upload()
        // Then the central store holds exactly the device's events, once each, in three requests of at most 1,000
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("uploaded 2500, duplicates 0, quarantined 0 (3 requests"), "\(first.stdout)")
        #expect(Set(try harness.ids(harness.central)) == Set(events.map(\.id.uuidString)))
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 2_500)
        #expect(harness.cursor == (try harness.int(harness.device, "SELECT max(seq) FROM events")))
        #expect(second.status == 0)
        #expect(second.stdout.contains("uploaded 0, duplicates 0, quarantined 0 (0 requests"), "\(second.stdout)")
        #expect(second.stdout.contains("nothing is pending"))
        // And within each request the central store keeps the device's seq order (two requests on
        // the wire may commit in either order, so the whole is compared batch by batch)
        let device = try harness.ids(harness.device)
        let central = try harness.ids(harness.central)
        let position = Dictionary(uniqueKeysWithValues: device.enumerated().map { ($1, $0) })
        for start in stride(from: 0, to: device.count, by: 1_000) {
            let batch = Array(device[start..<min(start + 1_000, device.count)])
            let stored = central.filter { id in (position[id] ?? -1) >= start && (position[id] ?? -1) < start + 1_000 }
            #expect(stored == batch, "the batch from seq position \(start) kept its order")
        }
    }

    @Test func theContextOfVersionTwoEventsReachesTheCollectorAndVersionOneEventsStayWithout() async throws {
        // Given a device holding version-1 events (no context) and version-2 events with a context
        let harness = try UploadHarness()
        var old = DeviceEvents.presentations(5, user: "old-app")
        for index in old.indices { old[index].catalogVersion = 1 }
        let context = EventContext(
            appVersion: "3.2.0", build: "412", platform: .ipados, osVersion: "17.4.1", sdkVersion: "0.1.0",
            locale: "ja-JP")
        var new = DeviceEvents.presentations(5, user: "new-app", start: 1_764_500_000_000)
        for index in new.indices { new[index].context = context }
        try harness.record(old + new)
        // When it uploads to the collector
        let result = try await harness.upload()
        // Then the collector's store holds every event with the device's context, field by field
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("uploaded 20, duplicates 0, quarantined 0"), "\(result.stdout)")
        let rows = try Connection(path: harness.central, options: OpenOptions(readOnly: true, create: false)).all(
            "SELECT user_id, catalog_version, app_version, build, platform, os_version, sdk_version, locale FROM events"
        ) { row in (0..<8).map { row.value(at: $0) } }
        #expect(rows.count == 20)
        for row in rows where row[0] == .text("old-app") {
            #expect(row[1] == .integer(1) && row[2...].allSatisfy { $0 == .null }, "\(row)")
        }
        let expected: [SQLValue] = [
            .text("3.2.0"), .text("412"), .text("ipados"), .text("17.4.1"), .text("0.1.0"), .text("ja-JP"),
        ]
        for row in rows where row[0] == .text("new-app") { #expect(Array(row[2...]) == expected, "\(row)") }
    }

    @Test func eventsOfACustomerForgottenAtTheCollectorAreRefusedThereAndTheUploadStillCompletes() async throws {
        // Given a customer forgotten on the central store, and a device holding their events and another's
        let harness = try UploadHarness()
        let forgotten = "forgotten-\(UUID().uuidString.prefix(8))"
        let forget = try await harness.run(["forget", "--user", forgotten, "--db", harness.central])
        #expect(forget.status == 0, "\(forget.stderr)")
        try harness.record(DeviceEvents.presentations(10, user: forgotten))
        let kept = try harness.record(DeviceEvents.presentations(15, user: "kept-customer"))
        // When the device uploads
        let result = try await harness.upload()
        // Then the collector refuses the 20 events of the forgotten customer and stores the 30 others,
        // the batch adds up (accepted + duplicates + quarantined + suppressed), and the cursor passes them all
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("uploaded 30, duplicates 0, quarantined 0"), "\(result.stdout)")
        #expect(
            result.stdout.contains("the collector refused 20 events of customers forgotten there"), "\(result.stdout)")
        #expect(Set(try harness.ids(harness.central)) == Set(kept.map(\.id.uuidString)))
        #expect(harness.cursor == (try harness.int(harness.device, "SELECT max(seq) FROM events")))
        let again = try await harness.upload()
        #expect(again.stdout.contains("uploaded 0, duplicates 0, quarantined 0 (0 requests"), "\(again.stdout)")
    }

    @Test func deviceForwardingRecordsImpressionsAsForwardedByTheDeviceAndKeepsTheDeviceOutbox() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(40))
        let result = try await harness.upload(forwarding: "device")
        #expect(result.status == 0, "\(result.stderr)")
        // The collector never sends them: delivered by the device, nothing in its outbox
        #expect(try harness.int(harness.central, "SELECT count(*) FROM deliveries WHERE by_device = 1") == 40)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 0)
        // The device still sends them itself
        #expect(try harness.int(harness.device, "SELECT count(*) FROM outbox") == 40)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM deliveries") == 0)
    }

    @Test func collectorForwardingHandsImpressionsOverSoOnlyTheCollectorSendsThem() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(40))
        let result = try await harness.upload(forwarding: "collector")
        #expect(result.status == 0, "\(result.stderr)")
        // The collector queues them for RevenueCat
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 40)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM deliveries") == 0)
        // The device's outbox is empty: `forward` here can never send them too
        #expect(try harness.int(harness.device, "SELECT count(*) FROM outbox") == 0)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM deliveries WHERE to_collector = 1") == 40)
        let forward = try await harness.run(
            ["forward", "--db", harness.device, "--endpoint", "http://127.0.0.1:1"],
            environment: ["REVENUECAT_API_KEY": "appl_UploaderTestKey1234"])
        #expect(forward.status == 0, "\(forward.stderr)")
        #expect(
            forward.stdout.contains("delivered 0, will retry 0, dead-lettered 0 (0 requests; nothing due)"),
            "\(forward.stdout)")
        let stats = try await harness.run(["stats", "--db", harness.device])
        #expect(stats.stdout.contains("handed to the collector, which forwards them: 40"), "\(stats.stdout)")
        #expect(
            stats.stdout.contains("Uploaded to the collector: through seq 80, 0 events pending upload"),
            "\(stats.stdout)")
    }

    @Test func impressionsThisStoreForwardedItselfGoAsDeviceEvenWithCollectorForwarding() async throws {
        // Given a store whose own forwarder delivered 10 of its 30 impressions (an earlier configuration)
        let harness = try UploadHarness()
        let events = try harness.record(DeviceEvents.presentations(30))
        let shown = events.filter { $0.name == .paywallShown }.map(\.id)
        try SQLiteOutbox(store: try EventStore(path: harness.device, now: .system)).markDelivered(
            Array(shown[10..<20]), at: 1)
        // When it uploads with the collector forwarding
        let result = try await harness.upload(forwarding: "collector")
        // Then those 10 are recorded as forwarded by the device (never sent again), the other 20 queued
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("uploaded 60, duplicates 0, quarantined 0 (3 requests"), "\(result.stdout)")
        #expect(try harness.int(harness.central, "SELECT count(*) FROM deliveries WHERE by_device = 1") == 10)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 20)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM deliveries WHERE to_collector = 1") == 20)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM outbox") == 0)
    }

    @Test func withoutAKeyNothingIsSentAndTheExitCodeIs64() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(5))
        let missing = try await harness.upload(key: "")
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("no collector write key in PAYWALL_COLLECTOR_KEY"), "\(missing.stderr)")
        #expect(missing.stderr.contains("keys add NAME"))
        let malformed = try await harness.upload(key: "pwk_abc\ndef0123456789")
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("is not a write key"), "\(malformed.stderr)")
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 0)
        #expect(harness.cursor == 0)
    }

    @Test(arguments: [
        (["--endpoint", "ftp://example.com", "--forwarding", "device"], "--endpoint must be an absolute http(s) URL"),
        (
            ["--endpoint", "http://127.0.0.1:1", "--forwarding", "both"],
            "--forwarding must be device or collector, got 'both'"
        ),
        (["--forwarding", "device"], "upload needs --endpoint URL"),
        (
            ["--endpoint", "http://127.0.0.1:1", "--forwarding", "device", "--max-batches", "0"],
            "--max-batches must be"
        ),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let harness = try UploadHarness(startCollector: false)
        try harness.record(DeviceEvents.presentations(1))
        let result = try await harness.run(
            ["upload", "--db", harness.device] + arguments,
            environment: ["PAYWALL_COLLECTOR_KEY": harness.key])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(harness.cursor == 0)
    }

    @Test func forwardingIsRequired() async throws {
        let harness = try UploadHarness(startCollector: false)
        try harness.record(DeviceEvents.presentations(1))
        let result = try await harness.run(
            ["upload", "--db", harness.device, "--endpoint", "http://127.0.0.1:1"],
            environment: ["PAYWALL_COLLECTOR_KEY": harness.key])
        #expect(result.status == 64)
        #expect(result.stderr.contains("upload needs --forwarding device|collector"), "\(result.stderr)")
    }

    @Test func aRevokedKeyKeepsEveryEventAndExits69() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(10))
        let revoked = try await harness.run(["keys", "revoke", "ios-app", "--db", harness.central])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let result = try await harness.upload()
        #expect(result.status == 69)
        #expect(result.stderr.contains("the collector refused the write key (HTTP 401)"), "\(result.stderr)")
        #expect(result.stderr.contains("every event is kept"))
        #expect(harness.cursor == 0)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 0)
    }

    @Test func anUnreachableCollectorExits69AndPausesLaterRuns() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(10))
        let endpoint = harness.endpoint
        harness.stopCollector()
        let down = try await harness.upload(endpoint: endpoint)
        #expect(down.status == 69)
        // The error names the host and port it tried, in words rather than an error code
        let port = try #require(URL(string: endpoint)?.port)
        #expect(
            down.stderr.contains("cannot connect to the collector at 127.0.0.1:\(port) (connection refused"),
            "\(down.stderr)")
        #expect(!down.stderr.contains("URLError"))
        #expect(down.stderr.contains("paused until"))
        #expect(harness.cursor == 0)
        // The pause is in the database: the next run sends nothing, whatever the collector does now
        #expect(
            try harness.int(harness.device, "SELECT count(*) FROM delivery_pauses WHERE destination = 'collector'") == 1
        )
    }

    @Test func retryNowLiftsThePauseOfARefusedKeyOnceTheKeyIsFixed() async throws {
        // Given an upload refused for its key (HTTP 401), which pauses uploading for the longest backoff
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(10))
        #expect(try await harness.run(["keys", "revoke", "ios-app", "--db", harness.central]).status == 0)
        let refused = try await harness.upload()
        #expect(refused.status == 69 && refused.stderr.contains("refused the write key"), "\(refused.stderr)")
        #expect(refused.stderr.contains("`upload --retry-now`"), "\(refused.stderr)")
        // When the key is fixed, a plain run still waits for the pause (and says how not to)
        let added = try await harness.run(["keys", "add", "ios-app-2", "--db", harness.central])
        let fixed = added.stdout.trimmingCharacters(in: .newlines)
        let waiting = try await harness.upload(key: fixed)
        #expect(waiting.status == 69 && waiting.stderr.contains("paused until"), "\(waiting.stderr)")
        #expect(waiting.stderr.contains("--retry-now"))
        #expect(harness.cursor == 0)
        // Then --retry-now lifts the pause and sends everything at once
        let now = try await harness.upload(["--retry-now"], key: fixed)
        #expect(now.status == 0, "\(now.stderr)")
        #expect(now.stdout.contains("uploaded 20, duplicates 0, quarantined 0"), "\(now.stdout)")
        #expect(now.stderr.isEmpty, "\(now.stderr)")
        #expect(try harness.int(harness.device, "SELECT count(*) FROM delivery_pauses") == 0)
        // And the old reason is gone for good: the next run has nothing to say about the key
        let next = try await harness.upload(key: fixed)
        #expect(next.status == 0 && next.stdout.contains("nothing is pending"), "\(next.stdout)")
        #expect(!(next.stdout + next.stderr).contains("refused"), "\(next.stderr)")
        #expect(harness.cursor > 0)
    }

    @Test func anotherRunHoldingTheLeaseMakesItBusy() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(3))
        let connection = try Connection(path: harness.device)
        let until = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        _ = try connection.run(
            "INSERT INTO meta (key, value) VALUES ('uploader.lease', ?1)", [.text("\(until) other-run")])
        let result = try await harness.upload()
        #expect(result.status == 75)
        #expect(result.stderr.contains("another upload run is using this database"), "\(result.stderr)")
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 0)
    }

    @Test func theCursorSurvivesVacuumAndARestart() async throws {
        // Given a device that uploaded one batch of its events
        let harness = try UploadHarness()
        let events = try harness.record(DeviceEvents.presentations(1_500))
        let first = try await harness.upload(["--max-batches", "1"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("more events are pending"))
        #expect(harness.cursor == 1_000)
        // When the file is vacuumed and the collector restarted
        let connection = try Connection(path: harness.device)
        try connection.execute("VACUUM")
        harness.stopCollector()
        try harness.startCollectorProcess()
        let rest = try await harness.upload()
        // Then the rest goes, none of the first batch again
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(rest.stdout.contains("uploaded 2000, duplicates 0, quarantined 0"), "\(rest.stdout)")
        #expect(Set(try harness.ids(harness.central)) == Set(events.map(\.id.uuidString)))
    }

    @Test func theWriteKeyIsNeverWrittenAnywhere() async throws {
        let harness = try UploadHarness()
        try harness.record(DeviceEvents.presentations(20))
        _ = try await harness.upload(forwarding: "collector")
        _ = try await harness.upload(["--no-gzip"])
        _ = try await harness.run(["stats", "--db", harness.device])
        _ = try await harness.run(["export", "events", "--db", harness.device, "--out", "-"])
        _ = try await harness.run(["keys", "revoke", "ios-app", "--db", harness.central])
        try harness.record(DeviceEvents.presentations(2))
        let refused = try await harness.upload()
        #expect(refused.status == 69)
        harness.stopCollector()
        let down = try await harness.upload(endpoint: "http://127.0.0.1:1")
        #expect(down.status == 69)
        #expect(harness.placesHolding(harness.key).isEmpty, "\(harness.placesHolding(harness.key))")
        #expect(harness.placesHolding(String(harness.key.dropFirst(4))).isEmpty)
    }

    @Test func aStoredRowWithAnUnknownNameStopsTheUploadWithExit65() async throws {
        // Given recorded events, one renamed by hand to a name the catalog lacks
        let harness = try UploadHarness()
        let events = try harness.record(DeviceEvents.presentations(3))
        let renamed = events[1].id.uuidString
        let connection = try Connection(path: harness.device)
        try connection.run("UPDATE events SET name = 'shown_v2' WHERE id = ?1", [.text(renamed)])
        // When upload runs
        let result = try await harness.upload()
        // Then it exits 65 naming the row and the value, and the cursor did not move
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stderr.contains(renamed) && result.stderr.contains("'shown_v2' in its name column"),
            "\(result.stderr)")
        #expect(result.stderr.contains("Fix or delete that row"), "\(result.stderr)")
        #expect(harness.cursor == 0)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 0)
    }
}
