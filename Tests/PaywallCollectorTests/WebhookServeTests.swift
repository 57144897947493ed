import Foundation
import PaywallCollector
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallTestSupport
import Testing

/// RevenueCat's webhooks posted over HTTP to the built `paywall-analytics serve` on 127.0.0.1, with a
/// secret made by `keys add NAME --webhook`: what is stored (read back with SQLite from the file),
/// what is refused, and that the secret appears in no byte written.
@Suite(.serialized)
struct WebhookServeTests {
    /// A harness (store, write key, serve) plus a webhook secret made through the CLI.
    final class Served: @unchecked Sendable {
        let harness: CollectorHarness
        let secret: String
        let keysOutput: String

        init(arguments: [String] = []) throws {
            // The secret is made before serve starts, as an operator would.
            let folder = TemporaryDirectory(prefix: "webhook-serve")
            let db = folder.path("central.sqlite")
            let cli = try CommandRunner(product: "paywall-analytics")
            let made = try cli.runBlocking(["keys", "add", "revenuecat", "--webhook", "--db", db])
            #expect(made.status == 0, "\(made.stderr)")
            secret = made.stdout.trimmingCharacters(in: .newlines)
            keysOutput = made.stderr  // (stdout is the secret itself, printed once on purpose)
            harness = try CollectorHarness(arguments: arguments, folder: folder)
        }

        func webhook(_ body: String, authorization: String?? = .none) throws -> HTTPReply {
            try webhook(Array(body.utf8), authorization: authorization)
        }

        func webhook(_ body: [UInt8], authorization: String?? = .none) throws -> HTTPReply {
            var headers: [(String, String)] = [("Content-Type", "application/json; charset=utf-8")]
            let value: String? = authorization ?? secret
            if let value { headers.append(("Authorization", value)) }
            let connection = try HTTPConnection(port: harness.port)
            connection.send(HTTPRequestText.make("POST", Collector.webhookPath, headers: headers, body: body))
            return try connection.readResponse()
        }

        func count(_ sql: String) throws -> Int { try harness.count(sql) }

        /// One stored event's column, read from the file.
        func column(_ name: String, id: String) throws -> SQLValue? {
            let connection = try Connection(path: harness.db, options: OpenOptions(readOnly: true, create: false))
            return try connection.scalar("SELECT \(name) FROM subscription_events WHERE id = ?1", [.text(id)])
        }
    }

    @Test func keysAddWebhookPrintsTheSecretAloneKeepsOnlyItsHashAndServeStartsWithItAlone() throws {
        let folder = TemporaryDirectory(prefix: "webhook-keys")
        let db = folder.path("central.sqlite")
        let cli = try CommandRunner(product: "paywall-analytics")
        let made = try cli.runBlocking(["keys", "add", "revenuecat", "--webhook", "--db", db])
        #expect(made.status == 0)
        let secret = made.stdout.trimmingCharacters(in: .newlines)
        #expect(made.stdout == secret + "\n", "the secret alone on stdout")
        #expect(secret.hasPrefix("pwh_") && secret.count == 68)
        #expect(made.stderr.contains("Authorization header value") && !made.stderr.contains(secret))
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        let row = try connection.all("SELECT key_sha256, kind FROM write_keys WHERE name = 'revenuecat'") {
            ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")
        }
        #expect(row.count == 1)
        #expect(row.first?.1 == "webhook")
        #expect(row.first?.0 == SHA256.hex(SHA256.digest(secret.utf8)))
        // A name is shared by both kinds.
        #expect(try cli.runBlocking(["keys", "add", "revenuecat", "--db", db]).status == 64)
        // A store holding only a webhook secret is served (RevenueCat alone may post to it).
        let server = try CollectorProcess(db: db, folder: folder)
        defer { server.stop(SIGTERM) }
        let reply = try HTTPConnection(port: server.port)
        reply.send(
            HTTPRequestText.make(
                "POST", Collector.webhookPath, headers: [("Authorization", secret)],
                body: Array(RecordedWebhooks.test().utf8)))
        #expect(try reply.readResponse().status == 200)
    }

    @Test func recordedBodiesAreStoredWithTheirColumnsAndTheirRawBodies() throws {
        let served = try Served()
        defer { served.harness.server.stop(SIGTERM) }
        let customer = RecordedWebhooks.Customer()
        let ids = (0..<6).map { _ in RecordedWebhooks.id() }
        let bodies = [
            RecordedWebhooks.trialStart(customer, id: ids[0]),
            RecordedWebhooks.trialConversion(customer, id: ids[1]),
            RecordedWebhooks.refund(customer, id: ids[2]),
            RecordedWebhooks.test(id: ids[3]),
            RecordedWebhooks.sandboxPurchase(customer, id: ids[4]),
            RecordedWebhooks.unknownType(customer, id: ids[5]),
        ]
        for (index, body) in bodies.enumerated() {
            // The whole value (as RevenueCat sends it) and `Bearer <secret>` both open the route.
            let reply = try served.webhook(
                body, authorization: index % 2 == 0 ? served.secret : "Bearer \(served.secret)")
            #expect(reply.status == 200, "\(index): \(reply.text)")
            #expect(reply.json["outcome"] as? String == "stored", "\(index): \(reply.text)")
        }
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 6)
        for (id, body) in zip(ids, bodies) {
            #expect(try served.column("raw_body", id: id) == .blob(Data(body.utf8)), "raw body of \(id)")
        }
        #expect(try served.column("type", id: ids[0])?.string == "INITIAL_PURCHASE")
        #expect(try served.column("period_type", id: ids[0])?.string == "TRIAL")
        #expect(try served.column("price_micros", id: ids[0])?.int64 == 0)
        #expect(try served.column("presented_offering_id", id: ids[0])?.string == "annual_first")
        #expect(try served.column("is_trial_conversion", id: ids[1])?.int64 == 1)
        #expect(try served.column("price_micros", id: ids[1])?.int64 == 39_990_000)
        #expect(try served.column("price_micros", id: ids[2])?.int64 == -39_990_000)
        #expect(try served.column("type", id: ids[3])?.string == "TEST")
        #expect(try served.column("environment", id: ids[4])?.string == "SANDBOX")
        #expect(try served.column("type", id: ids[5])?.string == "SUBSCRIBER_TELEPORTED")
        // The anonymous id the customer had before identifying is one of the trial's customer keys.
        #expect(
            try served.count(
                "SELECT count(*) FROM subscription_customer_keys k JOIN subscription_events e ON e.rowid = k.event_rowid "
                    + "WHERE e.id = '\(ids[0])' AND k.customer_key = '\(customer.anonymousID)'") == 1)
        let metrics = try served.harness.get("/metrics").text
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"stored\"} 6\n"))
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"received\"} 6\n"))
        #expect(served.harness.events == 0, "webhooks are not paywall events")
    }

    @Test func aRepeatedDeliveryIsStoredOnceAndABodyThatIsNoEventIsQuarantinedWith200() throws {
        let served = try Served()
        defer { served.harness.server.stop(SIGTERM) }
        let customer = RecordedWebhooks.Customer()
        let id = RecordedWebhooks.id()
        let body = RecordedWebhooks.trialStart(customer, id: id)
        #expect(try served.webhook(body).json["outcome"] as? String == "stored")
        let again = try served.webhook(body)
        #expect(again.status == 200)
        #expect(again.json["outcome"] as? String == "duplicate")
        #expect(try served.count("SELECT count(*) FROM subscription_events WHERE id = '\(id)'") == 1)

        for broken in ["this is not JSON {", #"{"api_version":"1.0"}"#, #"{"event":{"id":42,"type":"RENEWAL"}}"#] {
            let reply = try served.webhook(broken)
            #expect(reply.status == 200, "\(broken): \(reply.text)")
            #expect(reply.json["outcome"] as? String == "quarantined", "\(broken): \(reply.text)")
            #expect((reply.json["reasons"] as? [String])?.isEmpty == false, "\(broken): \(reply.text)")
        }
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 1)
        #expect(try served.count("SELECT count(*) FROM quarantine WHERE payload = 'this is not JSON {'") == 1)
        let metrics = try served.harness.get("/metrics").text
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"duplicate\"} 1\n"))
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"quarantined\"} 3\n"))
    }

    @Test func aForgottenCustomersLaterWebhookIsSuppressedCountedAndNotStored() throws {
        let served = try Served()
        defer { served.harness.server.stop(SIGTERM) }
        let customer = RecordedWebhooks.Customer()
        #expect(try served.webhook(RecordedWebhooks.trialStart(customer)).json["outcome"] as? String == "stored")
        // forget runs beside the serving collector, on the same store.
        let forgot = try served.harness.cli.runBlocking([
            "forget", "--user", customer.appUserID, "--db", served.harness.db,
        ])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 0)
        let later = try served.webhook(RecordedWebhooks.trialConversion(customer))
        #expect(later.status == 200)
        #expect(later.json["outcome"] as? String == "suppressed")
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 0)
        let metrics = try served.harness.get("/metrics").text
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"suppressed\"} 1\n"))
        #expect(!metrics.contains(customer.appUserID))
    }

    @Test func noOtherCredentialOpensTheRouteTheSecretOpensNoOtherAndOversizeIs413() throws {
        let served = try Served(arguments: ["--max-body", "8KiB"])
        defer { served.harness.server.stop(SIGTERM) }
        let body = RecordedWebhooks.trialStart(RecordedWebhooks.Customer())
        for authorization: String? in [
            nil, served.harness.key, "Bearer \(served.harness.key)", served.secret + "x",
            "Bearer " + served.secret.dropLast(),
        ] {
            let reply = try served.webhook(body, authorization: .some(authorization))
            #expect(reply.status == 401, "\(authorization == nil ? "none" : "a wrong value")")
        }
        // The secret on the events route, whole or as a bearer token.
        let line = EventLines.body(EventLines.presentation().lines)
        #expect(try served.harness.post(line, key: served.secret).status == 401)
        let whole = try HTTPConnection(port: served.harness.port)
        whole.send(
            HTTPRequestText.make(
                "POST", "/v1/events",
                headers: [
                    ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "device"),
                    ("Authorization", served.secret),
                ], body: line))
        #expect(try whole.readResponse().status == 401)
        // Over --max-body: 413, with or without Content-Length.
        let big = Array(body.utf8) + Array(repeating: UInt8(ascii: " "), count: 9 << 10)
        #expect(try served.webhook(big).status == 413)
        let chunked = try HTTPConnection(port: served.harness.port)
        chunked.send(
            HTTPRequestText.make(
                "POST", Collector.webhookPath,
                headers: [("Authorization", served.secret), ("Transfer-Encoding", "chunked")],
                body: Array(String(big.count, radix: 16).utf8) + Array("\r\n".utf8) + big + Array("\r\n0\r\n\r\n".utf8),
                contentLength: false))
        #expect(try chunked.readResponse().status == 413)
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 0)
        #expect(served.harness.quarantined == 0)
        #expect(served.harness.events == 0)
        let metrics = try served.harness.get("/metrics").text
        #expect(metrics.contains("paywall_collector_webhooks_total{outcome=\"unauthorized\"} 5\n"))
        // keys list shows both kinds; revoking the secret closes the route from the next request on.
        let list = try served.harness.cli.runBlocking(["keys", "list", "--db", served.harness.db])
        #expect(list.stdout.contains("revenuecat\twebhook\t"))
        #expect(list.stdout.contains("ios-app\twrite\t"))
        #expect(try served.webhook(body).status == 200)
        #expect(
            try served.harness.cli.runBlocking(["keys", "revoke", "revenuecat", "--db", served.harness.db]).status == 0)
        #expect(try served.webhook(body).status == 401)
    }

    @Test func everyAcknowledgedWebhookSurvivesSIGKILLInTheMiddleOfDeliveries() throws {
        let served = try Served()
        let customer = RecordedWebhooks.Customer()
        let acknowledged = Lock([String]())
        let killed = Lock(false)
        let enough = DispatchSemaphore(value: 0)
        // Eight clients deliver continuously; serve is killed once 30 deliveries are acknowledged.
        let clients = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: clients) {
                while !killed.withLock({ $0 }) {
                    let id = RecordedWebhooks.id()
                    guard let reply = try? served.webhook(RecordedWebhooks.trialConversion(customer, id: id)) else {
                        continue
                    }
                    if reply.status == 200 {
                        let count = acknowledged.withLock { ids in
                            ids.append(id)
                            return ids.count
                        }
                        if count == 30 { enough.signal() }
                    }
                }
            }
        }
        let reached = enough.wait(timeout: .now() + 120)  // a hang guard, not a measure
        served.harness.server.stop(SIGKILL)
        killed.withLock { $0 = true }
        clients.wait()
        let ids = acknowledged.withLock { $0 }
        #expect(reached == .success)
        #expect(ids.count >= 30)
        let connection = try Connection(path: served.harness.db, options: OpenOptions(readOnly: true, create: false))
        let stored = Set(try connection.all("SELECT id FROM subscription_events") { $0.string(at: 0) ?? "" })
        #expect(Set(ids).isSubset(of: stored), "\(Set(ids).subtracting(stored).count) acknowledged webhooks lost")
    }

    @Test func noByteOfTheSecretIsInTheStoreItsLogTheLogsTheMetricsOrAnyOutput() throws {
        let served = try Served()
        let secret = served.secret
        let customer = RecordedWebhooks.Customer()
        var outputs = served.keysOutput
        for body in [
            RecordedWebhooks.trialStart(customer), RecordedWebhooks.refund(customer), RecordedWebhooks.test(),
            "not json at all",
        ] {
            outputs += try served.webhook(body, authorization: "Bearer \(secret)").text
        }
        // Wrong values that hold the secret whole: none may be echoed, logged or stored either.
        for wrong in [secret + "0", "Basic " + secret, secret + " " + secret] {
            let reply = try served.webhook(RecordedWebhooks.test(), authorization: .some(wrong))
            #expect(reply.status == 401)
            outputs += reply.text
        }
        outputs += try served.harness.post(EventLines.body(EventLines.presentation().lines), key: secret).text
        outputs += try served.harness.cli.runBlocking(["keys", "list", "--db", served.harness.db]).stdout
        outputs += try served.harness.get("/metrics").text
        try outputs.write(toFile: served.harness.folder.path("outputs.txt"), atomically: true, encoding: .utf8)
        served.harness.server.stop(SIGKILL)  // keeps the WAL and shm files on disk, to be searched too
        #expect(try served.count("SELECT count(*) FROM subscription_events") == 3)
        let files = try FileManager.default.contentsOfDirectory(atPath: served.harness.folder.url.path).map(
            served.harness.folder.path)
        #expect(files.contains { $0.hasSuffix("-wal") })
        #expect(files.contains { $0.hasSuffix("outputs.txt") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in \(file)")
            #expect(bytes.range(of: Data(secret.dropFirst(4).utf8)) == nil, "the secret's body is in \(file)")
            #expect(
                bytes.range(of: Data(secret.dropFirst(4).prefix(16).utf8)) == nil, "part of the secret is in \(file)")
        }
    }
}
