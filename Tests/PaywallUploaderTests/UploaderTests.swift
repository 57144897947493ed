import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import PaywallUploader
import RevenueCatForwarder
import Testing

/// The uploader's adapter against a scripted server on 127.0.0.1 and a real SQLite store.
struct UploaderTests {
    let folder = TemporaryDirectory(prefix: "uploader-tests")
    let time = SteppedTime()

    func store(_ events: [EventRecord]) throws -> EventStore {
        let store = try EventStore(path: folder.path("device.sqlite"), now: time.now)
        try store.insert(events)
        return store
    }

    func uploader(
        _ store: EventStore, _ endpoint: URL, forwarding: ForwardingParty = .device, gzip: Bool = true,
        maxBatches: Int = 100
    ) throws -> Uploader {
        Uploader(
            queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(timeout: .seconds(5)),
            configuration: UploaderConfiguration(
                endpoint: endpoint, writeKey: try CollectorKey(FakeCollector.key),
                forwarding: forwarding, maxBatches: maxBatches, gzip: gzip),
            now: time.now)
    }

    func cursor(_ store: EventStore) throws -> Int64 { try SQLiteUploadQueue(store: store).uploadCursor() }

    @Test(arguments: [ForwardingParty.device, .collector], [true, false])
    func sendsSeqOrderedNDJSONWithTheCollectorsHeaders(forwarding: ForwardingParty, gzip: Bool) async throws {
        let events = DeviceEvents.presentations(700)
        let store = try store(events)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, request in FakeCollector.answer(request) }
        guard
            case .completed(let report) = try await uploader(store, standIn.baseURL, forwarding: forwarding, gzip: gzip)
                .uploadOnce()
        else { throw BusyError() }
        #expect(report.accepted == 1_400 && report.requests == 2 && report.stop == .nothingDue)
        let exchanges = standIn.exchanges
        let sentIDs = exchanges.flatMap { FakeCollector.lines($0.request) }.map { line in
            String(line.dropFirst(7).prefix(36))  // {"id":"<36>"
        }
        #expect(sentIDs == events.map(\.id.uuidString))
        for exchange in exchanges {
            let request = exchange.request
            #expect(request.method == "POST" && request.path == "/v1/events")
            #expect(request.header("Authorization") == "Bearer \(FakeCollector.key)")
            #expect(request.header("Content-Type") == "application/x-ndjson")
            #expect(request.header("X-Paywall-Forwarding") == forwarding.rawValue)
            #expect(request.header("Content-Encoding") == (gzip ? "gzip" : nil))
            #expect(FakeCollector.lines(request).count <= 1_000)
        }
        #expect(try cursor(store) == 1_400)
    }

    @Test func batchesStayUnder512KiBOfNDJSON() async throws {
        // Events of about 2.1 KB each: a 512 KiB batch holds about 250 of them, not 1,000
        let long = String(repeating: "u", count: 2_000)
        let store = try store(DeviceEvents.presentations(600, user: long))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, request in FakeCollector.answer(request) }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        #expect(report.accepted == 1_200)
        let sizes = standIn.exchanges.map { FakeCollector.lines($0.request).reduce(0) { $0 + $1.utf8.count + 1 } }
        #expect(sizes.allSatisfy { $0 <= 512 * 1024 }, "\(sizes)")
        #expect(sizes.count >= 5 && sizes.dropLast().allSatisfy { $0 > 500 * 1024 }, "\(sizes)")
    }

    @Test func a413HalvesTheBatchUntilItFits() async throws {
        let store = try store(DeviceEvents.presentations(500))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, request in
            FakeCollector.lines(request).count > 250
                ? .status(413, body: "{\"error\":\"too large\"}") : FakeCollector.answer(request)
        }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        // 1,000 refused, 500 refused, then 250 at a time
        #expect(report.accepted == 1_000 && report.shrinks == 2 && report.stop == .nothingDue)
        #expect(standIn.exchanges.map { FakeCollector.lines($0.request).count } == [1_000, 500, 250, 250, 250, 250])
        #expect(try cursor(store) == 1_000)
    }

    @Test(arguments: [
        "{\"accepted\":999,\"duplicates\":0,\"quarantined\":0}",
        "{\"accepted\":1000,\"duplicates\":1,\"quarantined\":0}",
        "{\"accepted\":1000,\"duplicates\":0,\"quarantined\":0,\"suppressed\":-1}",
        // counts whose sum passes Int (the uploader process used to stop on this answer)
        "{\"accepted\":9223372036854775807,\"duplicates\":1,\"quarantined\":0}",
        "{}",
        "not json",
    ])
    func a200WhoseCountsDoNotAddUpIsAFailure(body: String) async throws {
        let store = try store(DeviceEvents.presentations(500))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, _ in .status(200, body: body) }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        #expect(report.accepted == 0 && report.willRetry == 1_000 && report.stop == .unavailable)
        #expect(
            report.lastFailure?.contains("does not account for every line sent") == true, "\(report.lastFailure ?? "")")
        #expect(try cursor(store) == 0)
    }

    @Test(arguments: [401, 403])
    func aRefusedKeyKeepsEverythingAndWaitsTheCappedBackoff(status: Int) async throws {
        let store = try store(DeviceEvents.presentations(10))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, _ in .status(status, body: "{\"error\":\"the write key is unknown or revoked\"}")
        }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        #expect(report.stop == .unavailable && report.requests == 1)
        #expect(try cursor(store) == 0)
        #expect(report.pausedUntil == time.current + 600_000)
        #expect(report.lastFailure?.contains("the collector refused the write key (HTTP \(status))") == true)
        #expect(report.lastFailure?.contains(FakeCollector.key) == false)
        #expect(try store.stats().totalEvents == 20)
    }

    @Test func duplicatesCountAsAcknowledged() async throws {
        let store = try store(DeviceEvents.presentations(50))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, request in FakeCollector.answer(request, duplicates: 30) }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        #expect(report.accepted == 70 && report.duplicates == 30)
        #expect(try cursor(store) == 100)
    }

    @Test func aPassStopsAtItsBatchLimit() async throws {
        let store = try store(DeviceEvents.presentations(1_500))
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { _, request in FakeCollector.answer(request) }
        guard case .completed(let report) = try await uploader(store, standIn.baseURL, maxBatches: 2).uploadOnce()
        else {
            throw BusyError()
        }
        #expect(report.accepted == 2_000 && report.stop == .batchLimit)
        #expect(try cursor(store) == 2_000)
    }

    @Test func theWriteKeyNeverShowsInDescriptions() throws {
        let key = try CollectorKey(FakeCollector.key)
        #expect(!"\(key)".contains(FakeCollector.key) && !String(reflecting: key).contains(FakeCollector.key))
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(FakeCollector.key))
        #expect(throws: CollectorKeyError.malformed(source: "the configuration")) {
            try CollectorKey("pwk_abc\ndef0123456")
        }
        #expect(throws: CollectorKeyError.missing(source: "PAYWALL_COLLECTOR_KEY")) {
            try CollectorKey.resolve(configured: nil, environment: [:])
        }
    }
}
