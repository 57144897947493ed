import Foundation
import PaywallCore
import PaywallGzip
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import PaywallUploader
import RevenueCatForwarder
import Testing

/// A failing destination pauses as a whole, in the database: the RevenueCat
/// forwarder and the uploader share the one ``DeliveryEngine`` that owns it. Real SQLite files, real
/// HTTP on 127.0.0.1; each pass after the first runs on a new connection, as a new process would.
@Suite(.serialized)
struct DestinationPauseTests {
    /// 18,124 impressions (a large backlog) recorded into a fresh store.
    static func backlog(_ folder: TemporaryDirectory, impressions: Int = 18_124) throws -> String {
        let path = folder.path("backlog.sqlite")
        let store = try EventStore(path: path, now: .constant(1_764_400_000_000))
        let events = DeviceEvents.presentations(impressions).filter { $0.name == .paywallShown }
        for chunk in stride(from: 0, to: events.count, by: 5_000) {
            try store.insert(Array(events[chunk..<min(chunk + 5_000, events.count)]))
        }
        return path
    }

    static func forwarder(_ path: String, _ endpoint: URL, time: SteppedTime) throws -> Forwarder {
        let store = EventStore(connection: try Schema.open(path: path), now: time.now)
        let configuration = ForwarderConfiguration(
            apiKey: try APIKey("appl_PauseTestKey12345"), endpoint: endpoint,
            maxBatches: 10)
        return Forwarder(
            outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(5)),
            configuration: configuration, now: time.now)
    }

    @Test func aRetryAfterPausesEveryBatchOfTheForwarderForNewProcessesToo() async throws {
        // Given 18,124 pending impressions and RevenueCat answering 503 with Retry-After: 1 once
        let folder = TemporaryDirectory(prefix: "pause-tests")
        let path = try Self.backlog(folder)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.retryAfter("1", status: 503))
        let time = SteppedTime()
        // When a pass meets the 503
        guard case .completed(let first) = try await Self.forwarder(path, standIn.baseURL, time: time).forwardOnce()
        else {
            throw BusyError()
        }
        #expect(first.requests == 1 && first.willRetry == 50 && first.revenueCatUnavailable)
        // Then a pass 0.4 s later, on a new connection, sends nothing at all (no batch is due to it)
        time.advance(ms: 400)
        guard case .completed(let second) = try await Self.forwarder(path, standIn.baseURL, time: time).forwardOnce()
        else {
            throw BusyError()
        }
        #expect(second.requests == 0 && second.delivered == 0)
        #expect(second.revenueCatUnavailable && second.stop == .revenueCatUnavailable)
        #expect(second.lastFailure == "RevenueCat answered HTTP 503")
        #expect(second.nextAttemptAt == time.current + 600)
        #expect(standIn.requestCount == 1)
        // And once the second has passed, the next pass sends (the failed batch first) and clears the pause
        time.advance(ms: 601)
        guard case .completed(let third) = try await Self.forwarder(path, standIn.baseURL, time: time).forwardOnce()
        else {
            throw BusyError()
        }
        #expect(third.requests == 10 && third.delivered == 500)
        #expect(standIn.exchanges[1].eventIDs == standIn.exchanges[0].eventIDs)
        #expect(standIn.exchanges[1].request.header("X-Retry-Count") == "1")
        let connection = try Connection(path: path, options: .readOnly)
        #expect(try connection.scalar("SELECT count(*) FROM delivery_pauses")?.int64 == 0)
        #expect(try connection.scalar("SELECT count(*) FROM outbox")?.int64 == 18_124 - 500)
    }

    @Test(arguments: [StandInResponse.status(500), .status(429), .hangUp])
    func fiveHundredsRateLimitsAndNetworkFailuresPauseTheForwarder(fault: StandInResponse) async throws {
        let folder = TemporaryDirectory(prefix: "pause-tests")
        let path = try Self.backlog(folder, impressions: 200)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(fault)
        let time = SteppedTime()
        _ = try await Self.forwarder(path, standIn.baseURL, time: time).forwardOnce()
        let connection = try Connection(path: path, options: .readOnly)
        let until = try #require(
            try connection.scalar("SELECT paused_until FROM delivery_pauses WHERE destination = 'revenuecat'")?.int64)
        #expect(until >= time.current)
        // Every pass before the pause ends sends nothing, however many batches are due
        time.advance(ms: max(0, until - time.current - 1))
        if until > time.current {
            guard
                case .completed(let paused) = try await Self.forwarder(path, standIn.baseURL, time: time).forwardOnce()
            else {
                throw BusyError()
            }
            #expect(paused.requests == 0 && paused.revenueCatUnavailable)
        }
        #expect(standIn.requestCount == 1)
    }

    @Test func aRetryAfterPausesTheUploaderToo() async throws {
        // Given a device store and a collector answering 503 with Retry-After: 1 once, then counting lines
        let folder = TemporaryDirectory(prefix: "pause-tests")
        let path = try Self.backlog(folder, impressions: 3_000)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.retryAfter("1", status: 503))
        standIn.respondByDefault { _, request in FakeCollector.answer(request) }
        let time = SteppedTime()
        func uploader() throws -> Uploader {
            let store = EventStore(connection: try Schema.open(path: path), now: time.now)
            return Uploader(
                queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(timeout: .seconds(5)),
                configuration: UploaderConfiguration(
                    endpoint: standIn.baseURL, writeKey: try CollectorKey(FakeCollector.key),
                    forwarding: .device),
                now: time.now)
        }
        guard case .completed(let first) = try await uploader().uploadOnce() else { throw BusyError() }
        #expect(first.requests == 1 && first.accepted == 0 && first.stop == .unavailable)
        #expect(first.pausedUntil == time.current + 1_000)
        time.advance(ms: 400)
        guard case .completed(let second) = try await uploader().uploadOnce() else { throw BusyError() }
        #expect(second.requests == 0 && second.stop == .paused && second.pausedUntil == time.current + 600)
        #expect(standIn.requestCount == 1)
        time.advance(ms: 601)
        guard case .completed(let third) = try await uploader().uploadOnce() else { throw BusyError() }
        #expect(third.accepted == 3_000 && third.requests == 3 && third.stop == .nothingDue)
        #expect(
            try Connection(path: path, options: .readOnly).scalar("SELECT count(*) FROM delivery_pauses")?.int64 == 0)
    }

    @Test func aNewForwardProcessRespectsThePause() async throws {
        // Given a pause set by one `forward` run (503, Retry-After: 30)
        let folder = TemporaryDirectory(prefix: "pause-tests")
        let path = try Self.backlog(folder, impressions: 120)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.retryAfter("30", status: 503))
        let cli = try CommandRunner(product: "paywall-analytics")
        let environment = ["REVENUECAT_API_KEY": "appl_PauseTestKey12345"]
        let arguments = ["forward", "--db", path, "--endpoint", standIn.baseURL.absoluteString]
        let first = try await cli.run(arguments, environment: environment)
        #expect(first.status == 69)
        // When another process runs forward at once
        let second = try await cli.run(arguments, environment: environment)
        // Then it sends nothing and says until when
        #expect(second.status == 69)
        #expect(second.stdout.contains("(0 requests; RevenueCat unavailable)"), "\(second.stdout)")
        #expect(second.stdout.contains("next attempt for pending impressions"), "\(second.stdout)")
        #expect(standIn.requestCount == 1)
    }
}

struct BusyError: Error {}

/// A collector stand-in's answers: gunzips the body and accounts for every line as accepted.
enum FakeCollector {
    static let key = "pwk_0123456789abcdef0123456789abcdef"

    /// The NDJSON lines of a request (gunzipped when it says so).
    static func lines(_ request: ReceivedHTTPRequest) -> [String] {
        var body = Array(request.body)
        if request.header("Content-Encoding") == "gzip" { body = (try? Gzip.inflate(body, limit: 64 << 20)) ?? [] }
        return String(decoding: body, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func answer(_ request: ReceivedHTTPRequest, duplicates: Int = 0) -> StandInResponse {
        let count = lines(request).count
        return .status(
            200,
            body: "{\"accepted\":\(count - duplicates),\"duplicates\":\(duplicates),\"quarantined\":0,\"rejected\":[]}")
    }
}
