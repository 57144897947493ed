import Foundation
import PaywallCollector
import PaywallGzip
import PaywallSQLite
import PaywallTestSupport
import Testing

/// The collector's status codes (docs/server.md) against the built collector, each checked to store
/// nothing it should not.
@Suite(.serialized)
struct CollectorStatusTests {
    @Test func storesAValidBatchAndAnswersWithTheCounts() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 3)
        let bad = "{\"id\":\"not-a-uuid\",\"name\":\"paywall_shown\"}"
        let reply = try harness.post(EventLines.body(batch.lines + [bad, batch.lines[0]]))
        #expect(reply.status == 200)
        #expect(reply.json["accepted"] as? Int == 6)
        #expect(reply.json["duplicates"] as? Int == 1)
        #expect(reply.json["quarantined"] as? Int == 1)
        let rejected = try #require(reply.json["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1 && rejected.first?["line"] as? Int == 7)
        #expect((rejected.first?["reasons"] as? [String])?.contains { $0.hasPrefix("id:") } == true)
        #expect(try harness.storedIDs() == Set(batch.ids))
        #expect(harness.quarantined == 1)
        #expect(
            try harness.count("SELECT count(*) FROM quarantine WHERE origin = 'collector/ios-app' AND line = 7") == 1)
        #expect(try harness.count("SELECT count(*) FROM outbox") == 3)
        let again = try harness.post(EventLines.body(batch.lines))
        #expect(again.status == 200 && again.json["accepted"] as? Int == 0 && again.json["duplicates"] as? Int == 6)
        #expect(harness.events == 6)
    }

    @Test func gzipBodiesAreStoredLikePlainOnes() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 50)
        let reply = try harness.post(EventLines.body(batch.lines), gzip: true)
        #expect(reply.status == 200 && reply.json["accepted"] as? Int == 100)
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func deviceForwardedImpressionsAreDeliveredByTheDeviceNotQueued() throws {
        let harness = try CollectorHarness()
        let device = EventLines.batch(pairs: 2)
        let collector = EventLines.batch(pairs: 3)
        #expect(try harness.post(EventLines.body(device.lines), forwarding: "device").status == 200)
        #expect(try harness.post(EventLines.body(collector.lines), forwarding: "collector").status == 200)
        #expect(try harness.count("SELECT count(*) FROM outbox") == 3)
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE by_device = 1") == 2)
        let stats = try harness.cli.runBlocking(["stats", "--db", harness.db])
        // This store sent none of them: the installs' own forwarding is never counted as delivered here.
        #expect(stats.stdout.contains("3 pending, 0 delivered, 0 dead-lettered"), "\(stats.stdout)")
        #expect(stats.stdout.contains("forwarded by the app installs themselves: 2"))
        let out = harness.folder.path("events.csv")
        let export = try harness.cli.runBlocking(["export", "events", "--out", out, "--db", harness.db])
        #expect(export.status == 0)
        let csv = try String(contentsOfFile: out, encoding: .utf8)
        #expect(csv.components(separatedBy: ",forwarded_by_device").count - 1 == 2)
        #expect(csv.components(separatedBy: ",pending").count - 1 == 3)
        // data_quality.csv: the 5 impressions are 2 delivered (both by the device) and 3 pending
        let reports = harness.folder.path("reports")
        let report = try harness.cli.runBlocking([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", reports,
            "--db", harness.db,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        let quality = try String(contentsOfFile: reports + "/data_quality.csv", encoding: .utf8)
            .split(whereSeparator: \.isNewline).map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            }
        let header = try #require(quality.first)
        let row = try #require(quality.dropFirst().first)
        let cell = { (name: String) in header.firstIndex(of: name).map { row[$0] } }
        #expect(quality.count == 2 && cell("date") == "2025-11-29", "\(quality)")
        #expect(
            cell("impressions_stored") == "5" && cell("impressions_delivered") == "2"
                && cell("impressions_pending") == "3")
        #expect(cell("impressions_forwarded_by_device") == "2", "\(quality)")
    }

    @Test func aMissingOrUnknownForwardingHeaderIs400AndStoresNothing() throws {
        let harness = try CollectorHarness()
        let body = EventLines.body(EventLines.batch(pairs: 1).lines)
        #expect(try harness.post(body, forwarding: "").status == 400)
        #expect(try harness.post(body, forwarding: "both").status == 400)
        #expect(harness.events == 0 && harness.quarantined == 0)
    }

    @Test func refusesMissingWrongAndRevokedKeysWith401() throws {
        let harness = try CollectorHarness()
        let body = EventLines.body(EventLines.batch(pairs: 1).lines)
        for key in ["", "pwk_" + String(repeating: "0", count: 64), "Basic abc"] {
            let reply = try harness.post(body, key: key)
            #expect(reply.status == 401)
            #expect(reply.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        }
        #expect(try harness.post(body).status == 200)
        let revoked = try harness.cli.runBlocking(["keys", "revoke", "ios-app", "--db", harness.db])
        #expect(revoked.status == 0)
        let other = EventLines.body(EventLines.batch(pairs: 1).lines)
        let reply = try harness.post(other)
        #expect(reply.status == 401)
        #expect(harness.events == 2 && harness.quarantined == 0)
    }

    @Test func refusesBodiesOverTheLimitsWith413() throws {
        let harness = try CollectorHarness(arguments: ["--max-body", "64KiB", "--max-decompressed", "1MiB"])
        let big = EventLines.body(EventLines.batch(pairs: 300).lines)
        #expect(big.count > 64 << 10)
        #expect(try harness.post(big).status == 413)
        // Chunked, so no Content-Length announces the size: refused while it arrives.
        let connection = try HTTPConnection(port: harness.port)
        var chunked = Array(
            ("POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n"
                + "X-Paywall-Forwarding: collector\r\nAuthorization: Bearer \(harness.key)\r\nTransfer-Encoding: chunked\r\n\r\n")
                .utf8)
        for start in stride(from: 0, to: big.count, by: 8_192) {
            let piece = big[start..<min(big.count, start + 8_192)]
            chunked += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
        }
        chunked += Array("0\r\n\r\n".utf8)
        connection.send(chunked)
        #expect(try connection.readResponse().status == 413)
        // A gzip bomb: 64 MiB of zeros is 64 KiB compressed, far under the body limit.
        let bomb = Gzip.deflate([UInt8](repeating: 0x20, count: 64 << 20), level: 9)
        #expect(bomb.count < 64 << 10)
        let connectionB = try HTTPConnection(port: harness.port)
        connectionB.send(
            HTTPRequestText.make(
                "POST", "/v1/events",
                headers: [
                    ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                    ("Authorization", "Bearer \(harness.key)"), ("Content-Encoding", "gzip"),
                ], body: bomb))
        #expect(try connectionB.readResponse().status == 413)
        #expect(harness.events == 0 && harness.quarantined == 0)
    }

    @Test func aTenMegabyteLineIs413AsSentAndQuarantinedWhenItFitsGzipped() throws {
        let harness = try CollectorHarness()
        let line = "{\"id\":\"\(UUID().uuidString)\",\"pad\":\"" + String(repeating: "x", count: 10_000_000) + "\"}"
        #expect(try harness.post(Array(line.utf8)).status == 413)
        #expect(harness.events == 0 && harness.quarantined == 0)
        let reply = try harness.post(Array((line + "\n").utf8), gzip: true)
        #expect(reply.status == 200 && reply.json["quarantined"] as? Int == 1)
        #expect(harness.events == 0 && harness.quarantined == 1)
    }

    @Test func refusesBadGzipInvalidUTF8AndWrongContentTypes() throws {
        let harness = try CollectorHarness()
        let body = EventLines.body(EventLines.batch(pairs: 1).lines)
        var cut = Gzip.deflate(body)
        cut.removeLast(12)
        let badGzip = try harness.post(cut, extraHeaders: [("Content-Encoding", "gzip")])
        #expect(badGzip.status == 400)
        let notGzip = try harness.post(body, extraHeaders: [("Content-Encoding", "gzip")])
        #expect(notGzip.status == 400)
        var invalid = body
        invalid.insert(contentsOf: [0xC3, 0x28, 0xFF], at: 30)
        #expect(try harness.post(invalid).status == 400)
        #expect(try harness.post(body, contentType: "application/json").status == 415)
        #expect(try harness.post(body, contentType: "").status == 415)
        #expect(try harness.post(body, extraHeaders: [("Content-Encoding", "br")]).status == 415)
        #expect(harness.events == 0 && harness.quarantined == 0)
    }

    @Test func unknownRoutesAre404AndWrongMethods405WithAllow() throws {
        let harness = try CollectorHarness()
        #expect(try harness.get("/v1/nothing").status == 404)
        #expect(try harness.get("/").status == 404)
        let get = try harness.get("/v1/events")
        #expect(get.status == 405 && get.headers["allow"] == "POST")
        let delete = try harness.get("/healthz", method: "DELETE")
        #expect(delete.status == 405 && delete.headers["allow"] == "GET, HEAD")
        #expect(try harness.get("/metrics", method: "POST").status == 405)
        #expect(try harness.get("/healthz").status == 200)
        #expect(harness.events == 0)
    }

    @Test func aLockedStoreGets503WithRetryAfterAndAFullQueueToo() throws {
        let harness = try CollectorHarness(arguments: ["--queue", "1"])
        let locker = try Connection(path: harness.db)
        try locker.execute("BEGIN IMMEDIATE")
        // The first request waits in the writer for the lock (up to the busy timeout), the second waits in
        // the queue (capacity 1), the third finds the queue full.
        let first = EventLines.batch(pairs: 1)
        let second = EventLines.batch(pairs: 1)
        let third = EventLines.batch(pairs: 1)
        let one = try HTTPConnection(port: harness.port)
        one.send(postBytes(EventLines.body(first.lines), key: harness.key))
        try waitForCommits(harness, started: 1)
        let two = try HTTPConnection(port: harness.port)
        two.send(postBytes(EventLines.body(second.lines), key: harness.key))
        try waitForQueueDepth(harness, 1)
        let full = try harness.post(EventLines.body(third.lines))
        #expect(full.status == 503 && full.headers["retry-after"] == "1")
        try locker.execute("ROLLBACK")
        #expect(try one.readResponse().status == 200)
        #expect(try two.readResponse().status == 200)
        #expect(try harness.storedIDs() == Set(first.ids + second.ids))
        // Held past the busy timeout (5 s): the store refuses the write, nothing is stored.
        try locker.execute("BEGIN IMMEDIATE")
        let refused = try harness.post(EventLines.body(third.lines))
        let health = try harness.get("/healthz")
        try locker.execute("ROLLBACK")
        #expect(refused.status == 503 && refused.headers["retry-after"] != nil)
        #expect(health.status == 503)
        #expect(try harness.storedIDs() == Set(first.ids + second.ids))
        // Health is the writer's last known state: 200 again once a write (the health probe) succeeds.
        #expect(try Eventually.holdsBlocking(every: .milliseconds(20)) { try harness.get("/healthz").status == 200 })
    }

    /// Waits (polling /metrics, which never waits for the writer) until the first request's body has arrived
    /// and the queue has been empty for 300 ms since: the writer has taken it and waits for the lock.
    func waitForCommits(_ harness: CollectorHarness, started: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        var emptySince: Date?
        while Date() < deadline {
            let metrics = try harness.get("/metrics").text
            let received = !metrics.contains("paywall_collector_received_bytes_total 0\n")
            if received, metrics.contains("paywall_collector_queue_depth 0\n") {
                if let since = emptySince, Date().timeIntervalSince(since) > 0.3 { return }
                emptySince = emptySince ?? Date()
            } else {
                emptySince = nil
            }
            usleep(20_000)
        }
    }

    /// Waits until `depth` requests wait in the commit queue.
    func waitForQueueDepth(_ harness: CollectorHarness, _ depth: Int) throws {
        _ = try Eventually.holdsBlocking(every: .milliseconds(20)) {
            try harness.get("/metrics").text.contains("paywall_collector_queue_depth \(depth)\n")
        }
    }

    func postBytes(_ body: [UInt8], key: String) -> [UInt8] {
        HTTPRequestText.make(
            "POST", "/v1/events",
            headers: [
                ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                ("Authorization", "Bearer \(key)"),
            ],
            body: body)
    }
}
