import Foundation
import PaywallCore
import PaywallLock
import PaywallStore
import PaywallTestSupport
import PaywallUploader
import RevenueCatForwarder
import Testing

/// Two batches on the wire (``DeliveryEngine``'s pipeline, used by the collector's adapter): the
/// next batch goes out before the answer to the one before, answers count only in order, and a
/// failed batch sets the answers after it aside. A scripted server on 127.0.0.1, a real store.
struct UploadPipelineTests {
    let folder = TemporaryDirectory(prefix: "upload-pipeline")
    let time = SteppedTime()

    func store(_ events: [EventRecord]) throws -> EventStore {
        let store = try EventStore(path: folder.path("device.sqlite"), now: time.now)
        try store.insert(events)
        return store
    }

    func uploader(_ store: EventStore, _ endpoint: URL) throws -> Uploader {
        Uploader(
            queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(timeout: .seconds(60)),
            configuration: UploaderConfiguration(
                endpoint: endpoint, writeKey: try CollectorKey(FakeCollector.key), forwarding: .device,
                maxBatches: 100, gzip: true),
            now: time.now)
    }

    /// The id of a request's first line: which batch it is, whatever order requests arrived in.
    static func firstID(_ request: ReceivedHTTPRequest) -> String? {
        FakeCollector.lines(request).first.map { String($0.dropFirst(7).prefix(36)) }
    }

    /// The ids of a request's lines, in body order.
    static func ids(_ exchange: RevenueCatStandIn.Exchange) -> [String] {
        FakeCollector.lines(exchange.request).map { String($0.dropFirst(7).prefix(36)) }  // {"id":"<36>"
    }

    @Test func theNextBatchGoesOutBeforeTheAnswerToTheOneBefore() async throws {
        // Given 4,000 events (four batches) and a collector that answers the second request only
        // after 3 s, noting when each request arrived
        let events = DeviceEvents.presentations(2_000)
        let store = try store(events)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let arrivals = Lock<[Int: ContinuousClock.Instant]>([:])
        standIn.respondByDefault { index, request in
            arrivals.withLock { $0[index] = .now }
            return index == 1 ? .delayed(.seconds(3), FakeCollector.answer(request)) : FakeCollector.answer(request)
        }
        // When one pass uploads everything
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        // Then the third request arrived while the second waited for its answer
        let seen = arrivals.withLock { $0 }
        let second = try #require(seen[1])
        let third = try #require(seen[2])
        #expect(third < second + .seconds(3), "the third batch was sent only after the second was answered")
        // And every event arrived once, each request a run of consecutive events, and the cursor is at the end
        #expect(report.accepted == 4_000 && report.requests == 4 && report.stop == .nothingDue)
        let order = Dictionary(uniqueKeysWithValues: events.enumerated().map { ($1.id.uuidString, $0) })
        let runs = standIn.exchanges.map(Self.ids).sorted { (order[$0[0]] ?? -1) < (order[$1[0]] ?? -1) }
        #expect(runs.flatMap { $0 } == events.map(\.id.uuidString))
        #expect(try SQLiteUploadQueue(store: store).uploadCursor() == 4_000)
    }

    @Test func aFailedBatchSetsTheAnswersAfterItAsideAndTheyAreSentAgain() async throws {
        // Given 4,000 events and a collector that answers the third batch (the one that starts at
        // event 2,000, whatever order the two connections' requests arrive in) 503 after 3 s, so
        // the fourth, sent while the third waits, is answered 200 first
        let events = DeviceEvents.presentations(2_000)
        let store = try store(events)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let thirdBatchStart = events[2_000].id.uuidString
        let refused = Lock(false)
        standIn.respondByDefault { _, request in
            // Only its first sending: the second pass's resend is answered 200
            let refuse =
                Self.firstID(request) == thirdBatchStart
                && refused.withLock { done in
                    defer { done = true }
                    return !done
                }
            return refuse
                ? .delayed(.seconds(3), .status(503, body: "{\"error\":\"busy\"}")) : FakeCollector.answer(request)
        }
        // When a pass meets the 503
        guard case .completed(let first) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        // Then the cursor stops before the failed batch although the batch after it got a 200
        #expect(first.requests == 4 && first.accepted == 2_000 && first.willRetry == 2_000)
        #expect(first.stop == .unavailable && first.lastStatus == 503)
        #expect(try SQLiteUploadQueue(store: store).uploadCursor() == 2_000)
        // And once the pause is over, the next pass sends the failed batch and the one after it again
        time.advance(ms: 3_600_000)
        guard case .completed(let second) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        #expect(second.accepted == 2_000 && second.requests == 2 && second.stop == .nothingDue)
        #expect(try SQLiteUploadQueue(store: store).uploadCursor() == 4_000)
        let exchanges = standIn.exchanges.sorted { $0.index < $1.index }
        #expect(exchanges.count == 6)
        let third = events[2_000..<3_000].map(\.id.uuidString)
        let fourth = events[3_000...].map(\.id.uuidString)
        #expect(
            exchanges[..<4].filter { Self.ids($0) == fourth }.count == 1, "the fourth batch was sent in the first pass")
        #expect(exchanges[4...].contains { Self.ids($0) == fourth }, "the set-aside batch was sent again")
        #expect(exchanges[4...].contains { Self.ids($0) == third }, "the failed batch was sent again")
    }

    @Test func a413WhileTwoBatchesAreOnTheWireHalvesAndSendsOneAtATimeUntilADelivery() async throws {
        // Given 4,000 events and a collector that takes the first 1,000-event batch, then refuses
        // anything above 250 events with 413
        let events = DeviceEvents.presentations(2_000)
        let store = try store(events)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let firstBatchStart = events[0].id.uuidString
        standIn.respondByDefault { _, request in
            Self.firstID(request) != firstBatchStart && FakeCollector.lines(request).count > 250
                ? .status(413, body: "{\"error\":\"too large\"}") : FakeCollector.answer(request)
        }
        // When one pass uploads
        guard case .completed(let report) = try await uploader(store, standIn.baseURL).uploadOnce() else {
            throw BusyError()
        }
        // Then the 413 on the second batch set the third (already sent) aside, the 500-event retry
        // went alone, and from the first delivered 250 on everything arrived
        #expect(report.accepted == 4_000 && report.shrinks == 2 && report.stop == .nothingDue)
        #expect(report.requests == 16)
        let sizes = standIn.exchanges.map { FakeCollector.lines($0.request).count }
        #expect(sizes.filter { $0 == 1_000 }.count == 3 && sizes.filter { $0 == 500 }.count == 1)
        #expect(sizes.filter { $0 == 250 }.count == 12)
        #expect(try SQLiteUploadQueue(store: store).uploadCursor() == 4_000)
    }
}
