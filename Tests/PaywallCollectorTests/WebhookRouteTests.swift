import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallCollector

/// The webhook route's HTTP side, on a real collector on 127.0.0.1 and a real store, with a
/// subscription store that records what it is handed (the real one is exercised through the built
/// binary in `WebhookServeTests`): who may post, what is answered when, and what is counted.
@Suite(.serialized)
struct WebhookRouteTests {
    struct DiskFull: Error {}

    /// Records every body it is handed and answers from a script keyed by the body's text.
    final class RecordingIngest: SubscriptionIngest, @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [[Data]] = []
        var failing = false
        /// Bodies whose text contains the key get that outcome; others are stored.
        let script: [String: WebhookOutcome]

        init(script: [String: WebhookOutcome] = [:]) { self.script = script }

        func ingest(_ bodies: [Data], receivedAtMs: Int64) throws -> [WebhookOutcome] {
            try lock.withLock {
                if failing { throw DiskFull() }
                calls.append(bodies)
            }
            return bodies.map { body in
                let text = String(decoding: body, as: UTF8.self)
                return script.first { text.contains($0.key) }?.value ?? .stored
            }
        }

        var bodies: [Data] { lock.withLock { calls.flatMap { $0 } } }
    }

    /// A store with one write key and one webhook secret, and a collector serving it in this process.
    final class Served: @unchecked Sendable {
        let folder = TemporaryDirectory(prefix: "webhook-route")
        let store: EventStore
        let collector: Collector
        let writeKey: String
        let secret: String
        let ingest: RecordingIngest

        init(
            ingest: RecordingIngest = RecordingIngest(), limits: CollectorLimits = CollectorLimits(), keys: Bool = true
        )
            throws
        {
            let connection = try Schema.open(path: folder.path("central.sqlite"), registering: [Collector.migrations])
            store = EventStore(connection: connection, now: .system)
            let writeKeys = WriteKeys(connection: connection, now: .system)
            writeKey = try writeKeys.add(name: "ios-app")
            secret = try writeKeys.add(name: "revenuecat", kind: .webhook)
            self.ingest = ingest
            collector = try Collector(
                store: store, socket: try ListenSocket.bind(host: "127.0.0.1", port: 0), limits: limits, now: .system,
                subscriptions: ingest)
        }

        func post(_ body: [UInt8], authorization: String?, path: String = Collector.webhookPath) throws -> HTTPReply {
            var headers: [(String, String)] = [("Content-Type", "application/json")]
            if path != Collector.webhookPath {
                headers = [("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "device")]
            }
            if let authorization { headers.append(("Authorization", authorization)) }
            let connection = try HTTPConnection(port: collector.port)
            connection.send(HTTPRequestText.make("POST", path, headers: headers, body: body))
            return try connection.readResponse()
        }

        func metrics() throws -> String {
            let connection = try HTTPConnection(port: collector.port)
            connection.send(HTTPRequestText.make("GET", "/metrics"))
            return try connection.readResponse().text
        }

        deinit { collector.shutdown(grace: .seconds(1)) }
    }

    static let body = Array(#"{"api_version":"1.0","event":{"id":"A1","type":"TEST"}}"#.utf8)

    @Test func theSecretOpensTheRouteWholeOrAsBearerAndEachOutcomeIsAnswered200() throws {
        let served = try Served(
            ingest: RecordingIngest(script: [
                "\"DUP\"": .duplicate, "\"FORGOTTEN\"": .suppressed, "not json": .quarantined(reasons: ["not JSON"]),
            ]))
        let whole = try served.post(Self.body, authorization: served.secret)
        #expect(whole.status == 200)
        #expect(whole.json["outcome"] as? String == "stored")
        #expect(try served.post(Self.body, authorization: "Bearer \(served.secret)").status == 200)
        #expect(try served.post(Self.body, authorization: "bearer  \(served.secret) ").status == 200)
        let duplicate = try served.post(Array(#"{"event":{"id":"DUP"}}"#.utf8), authorization: served.secret)
        #expect(duplicate.status == 200)
        #expect(duplicate.json["outcome"] as? String == "duplicate")
        let suppressed = try served.post(Array(#"{"event":{"id":"FORGOTTEN"}}"#.utf8), authorization: served.secret)
        #expect(suppressed.json["outcome"] as? String == "suppressed")
        let quarantined = try served.post(Array("not json".utf8), authorization: served.secret)
        #expect(quarantined.status == 200)
        #expect(quarantined.json["outcome"] as? String == "quarantined")
        #expect(quarantined.json["reasons"] as? [String] == ["not JSON"])
        // Every body reached the store exactly as sent.
        #expect(served.ingest.bodies.count == 6)
        #expect(served.ingest.bodies.first == Data(Self.body))
        #expect(served.ingest.bodies.last == Data("not json".utf8))
        let metrics = try served.metrics()
        for (outcome, count) in [
            ("received", 6), ("stored", 3), ("duplicate", 1), ("suppressed", 1), ("quarantined", 1),
            ("unauthorized", 0),
        ] {
            #expect(
                metrics.contains("paywall_collector_webhooks_total{outcome=\"\(outcome)\"} \(count)\n"), "\(outcome)")
        }
        #expect(
            metrics.contains("paywall_collector_requests_total{route=\"/v1/revenuecat/webhooks\",status=\"200\"} 6"))
    }

    @Test func noOtherCredentialOpensTheRouteAndTheSecretOpensNothingElse() throws {
        let served = try Served()
        for authorization in [
            nil, "", served.writeKey, "Bearer \(served.writeKey)", served.secret + "0",
            String(served.secret.dropLast()),
            "Basic \(served.secret)", "Bearer",
        ] {
            let reply = try served.post(Self.body, authorization: authorization)
            #expect(reply.status == 401, "\(String(describing: authorization?.prefix(12)))")
            #expect(reply.headers["www-authenticate"] != nil)
            #expect(!reply.text.contains(served.secret) && !reply.text.contains(served.writeKey))
        }
        // The webhook secret on the events route: refused, nothing stored.
        let line = Array(#"{"id":"0E6C0B3E-7B7C-4C59-9D3B-1F7E1C3A7B11","name":"paywall_shown"}"#.utf8) + [0x0A]
        #expect(try served.post(line, authorization: "Bearer \(served.secret)", path: "/v1/events").status == 401)
        #expect(try served.post(line, authorization: served.secret, path: "/v1/events").status == 401)
        #expect(served.ingest.bodies.isEmpty)
        #expect(try served.store.connection.scalar("SELECT count(*) FROM events")?.int64 == 0)
        #expect(try served.store.connection.scalar("SELECT count(*) FROM quarantine")?.int64 == 0)
        // A revoked secret is refused from the next request on.
        #expect(try served.post(Self.body, authorization: served.secret).status == 200)
        try WriteKeys(connection: served.store.connection, now: .system).revoke(name: "revenuecat")
        #expect(try served.post(Self.body, authorization: served.secret).status == 401)
        let metrics = try served.metrics()
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"unauthorized\"} 9\n"))
        #expect(!metrics.contains(served.secret) && !metrics.contains(served.writeKey))
    }

    @Test func aBodyOverTheLimitIs413AndOnlyGETOrPOSTRoutesAnswer() throws {
        let served = try Served(limits: CollectorLimits(maxBodyBytes: 1_024))
        let big = Array(repeating: UInt8(ascii: "a"), count: 1_025)
        #expect(try served.post(big, authorization: served.secret).status == 413)
        #expect(try served.post(Array(big.prefix(1_024)), authorization: served.secret).status == 200)
        #expect(served.ingest.bodies.count == 1)
        let connection = try HTTPConnection(port: served.collector.port)
        connection.send(HTTPRequestText.make("GET", Collector.webhookPath))
        let reply = try connection.readResponse()
        #expect(reply.status == 405)
        #expect(reply.headers["allow"] == "POST")
    }

    @Test func aStoreThatCannotTakeTheBodyIsAnswered503WithRetryAfter() throws {
        let served = try Served()
        served.ingest.failing = true
        let reply = try served.post(Self.body, authorization: served.secret)
        #expect(reply.status == 503)
        #expect(reply.headers["retry-after"] != nil)
        #expect(!reply.text.contains(served.secret))
        served.ingest.failing = false
        #expect(try served.post(Self.body, authorization: served.secret).status == 200)
    }

    @Test func aFullCommitQueueIsAnswered503WithRetryAfterAndNothingStored() throws {
        // A store that holds the writer until the test lets it go, and a queue of one request.
        final class HeldIngest: SubscriptionIngest, @unchecked Sendable {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let count = Lock(0)
            func ingest(_ bodies: [Data], receivedAtMs: Int64) throws -> [WebhookOutcome] {
                entered.signal()
                release.wait()
                count.withLock { $0 += bodies.count }
                return bodies.map { _ in .stored }
            }
        }
        let folder = TemporaryDirectory(prefix: "webhook-full")
        let connection = try Schema.open(path: folder.path("central.sqlite"), registering: [Collector.migrations])
        let secret = try WriteKeys(connection: connection, now: .system).add(name: "rc", kind: .webhook)
        let held = HeldIngest()
        let collector = try Collector(
            store: EventStore(connection: connection, now: .system),
            socket: try ListenSocket.bind(host: "127.0.0.1", port: 0), limits: CollectorLimits(queueCapacity: 1),
            now: .system, subscriptions: held)
        defer { collector.shutdown(grace: .seconds(1)) }
        func send() throws -> HTTPConnection {
            let connection = try HTTPConnection(port: collector.port)
            connection.send(
                HTTPRequestText.make(
                    "POST", Collector.webhookPath, headers: [("Authorization", secret)], body: Self.body))
            return connection
        }
        // The first is in the writer's hands, the second waits in the queue: the third finds it full.
        let first = try send()
        held.entered.wait()
        let second = try send()
        #expect(Eventually.holdsBlocking { queueDepth(collector) == 1 })
        let third = try send().readResponse()
        #expect(third.status == 503)
        #expect(third.headers["retry-after"] == "1")
        held.release.signal()
        held.release.signal()
        #expect(try first.readResponse().status == 200)
        #expect(try second.readResponse().status == 200)
        #expect(held.count.withLock { $0 } == 2)
    }

    @Test func eventsAndWebhooksInOneGroupAreEachStoredAndAFailingWebhookStoreFailsOnlyTheWebhooks() throws {
        // A store that holds the writer on its first call, then fails or succeeds as told.
        final class GateIngest: SubscriptionIngest, @unchecked Sendable {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let calls = Lock([Int]())
            let failNext = Lock(false)
            func ingest(_ bodies: [Data], receivedAtMs: Int64) throws -> [WebhookOutcome] {
                let first = calls.withLock { calls in
                    calls.append(bodies.count)
                    return calls.count == 1
                }
                if first {
                    entered.signal()
                    release.wait()
                }
                if failNext.withLock({ $0 }) { throw DiskFull() }
                return bodies.map { _ in .stored }
            }
        }
        let gate = GateIngest()
        let folder = TemporaryDirectory(prefix: "webhook-group")
        let connection = try Schema.open(path: folder.path("central.sqlite"), registering: [Collector.migrations])
        let keys = WriteKeys(connection: connection, now: .system)
        let writeKey = try keys.add(name: "ios-app")
        let secret = try keys.add(name: "rc", kind: .webhook)
        let collector = try Collector(
            store: EventStore(connection: connection, now: .system),
            socket: try ListenSocket.bind(host: "127.0.0.1", port: 0), limits: CollectorLimits(), now: .system,
            subscriptions: gate)
        defer { collector.shutdown(grace: .seconds(1)) }
        func webhook() throws -> HTTPConnection {
            let http = try HTTPConnection(port: collector.port)
            http.send(
                HTTPRequestText.make(
                    "POST", Collector.webhookPath, headers: [("Authorization", secret)], body: Self.body))
            return http
        }
        func events(_ id: String) throws -> HTTPConnection {
            let http = try HTTPConnection(port: collector.port)
            let line =
                "{\"id\":\"\(id)\",\"name\":\"paywall_shown\",\"occurred_at\":1764400000000,\"user_id\":\"u1\","
                + "\"catalog_version\":1,\"pw_id\":\"\(UUID().uuidString)\",\"source\":\"onboarding\"}\n"
            http.send(
                HTTPRequestText.make(
                    "POST", "/v1/events",
                    headers: [
                        ("Authorization", "Bearer \(writeKey)"), ("Content-Type", "application/x-ndjson"),
                        ("X-Paywall-Forwarding", "device"),
                    ], body: Array(line.utf8)))
            return http
        }
        // The writer is held in a first webhook; an events request and two webhooks queue behind it.
        let first = try webhook()
        gate.entered.wait()
        let eventID = UUID().uuidString
        let queued = try [events(eventID), webhook(), webhook()]
        #expect(Eventually.holdsBlocking { queueDepth(collector) == 3 })
        gate.release.signal()
        #expect(try first.readResponse().status == 200)
        let answers = try queued.map { try $0.readResponse() }
        #expect(answers.map(\.status) == [200, 200, 200])
        #expect(answers[0].json["accepted"] as? Int == 1)
        #expect(answers[1].json["outcome"] as? String == "stored")
        // The queued webhooks went to the store in one call, the events in the same turn.
        #expect(gate.calls.withLock { $0 } == [1, 2])
        #expect(try connection.scalar("SELECT count(*) FROM events WHERE id = ?1", [.text(eventID)])?.int64 == 1)

        // When the subscription store fails, the webhooks of the group get 503 and its events are stored.
        gate.failNext.withLock { $0 = true }
        let secondID = UUID().uuidString
        let failing = try [try events(secondID), try webhook()].map { try $0.readResponse() }
        #expect(failing[0].status == 200)
        #expect(failing[1].status == 503 && failing[1].headers["retry-after"] != nil)
        #expect(try connection.scalar("SELECT count(*) FROM events WHERE id = ?1", [.text(secondID)])?.int64 == 1)
    }
}

/// The requests waiting in a collector's queue, as its metrics say.
private func queueDepth(_ collector: Collector) -> Int {
    // Read through the HTTP endpoint, as an operator would.
    guard let connection = try? HTTPConnection(port: collector.port) else { return -1 }
    connection.send(HTTPRequestText.make("GET", "/metrics"))
    guard let text = try? connection.readResponse().text,
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("paywall_collector_queue_depth ") })
    else { return -1 }
    return Int(line.split(separator: " ").last ?? "") ?? -1
}
