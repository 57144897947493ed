import Foundation
import PaywallCollector
import PaywallGzip
import PaywallTestSupport
import Testing

/// HTTP/1.1 as clients really speak it, byte by byte on a raw socket: HTTP/1.0, keep-alive,
/// pipelining, chunked bodies, `Expect: 100-continue`.
@Suite(.serialized)
struct CollectorHTTPTests {
    func headers(_ harness: CollectorHarness) -> [(String, String)] {
        [
            ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
            ("Authorization", "Bearer \(harness.key)"),
        ]
    }

    @Test func answersHTTP10AndClosesTheConnection() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 2)
        let connection = try HTTPConnection(port: harness.port)
        connection.send(
            HTTPRequestText.make(
                "POST", "/v1/events", headers: headers(harness), body: EventLines.body(batch.lines),
                version: "HTTP/1.0"))
        let reply = try connection.readResponse()
        #expect(reply.status == 200 && reply.json["accepted"] as? Int == 4)
        #expect(connection.waitForClose())
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func keepsTheConnectionAliveAcrossRequests() throws {
        let harness = try CollectorHarness()
        let connection = try HTTPConnection(port: harness.port)
        var ids: [String] = []
        for _ in 0..<5 {
            let batch = EventLines.batch(pairs: 1)
            ids += batch.ids
            connection.send(
                HTTPRequestText.make(
                    "POST", "/v1/events", headers: headers(harness), body: EventLines.body(batch.lines)))
            let reply = try connection.readResponse()
            #expect(reply.status == 200 && reply.json["accepted"] as? Int == 2)
        }
        connection.send(HTTPRequestText.make("GET", "/healthz"))
        #expect(try connection.readResponse().status == 200)
        #expect(try harness.storedIDs() == Set(ids))
    }

    @Test func answersPipelinedRequestsInOrder() throws {
        let harness = try CollectorHarness()
        let batches = (0..<4).map { _ in EventLines.batch(pairs: 1) }
        var bytes: [UInt8] = []
        for (index, batch) in batches.enumerated() {
            // The second carries a duplicate of the first: order matters.
            let lines = index == 1 ? batch.lines + [batches[0].lines[0]] : batch.lines
            bytes += HTTPRequestText.make("POST", "/v1/events", headers: headers(harness), body: EventLines.body(lines))
        }
        bytes += HTTPRequestText.make("GET", "/v1/unknown")
        let connection = try HTTPConnection(port: harness.port)
        connection.send(bytes)
        for index in 0..<4 {
            let reply = try connection.readResponse()
            #expect(reply.status == 200 && reply.json["accepted"] as? Int == 2)
            #expect(reply.json["duplicates"] as? Int == (index == 1 ? 1 : 0))
        }
        #expect(try connection.readResponse().status == 404)
        #expect(harness.events == 8)
    }

    @Test func readsChunkedBodies() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 20)
        let body = EventLines.body(batch.lines)
        var bytes = Array(
            ("POST /v1/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + headers(harness).map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
        for start in stride(from: 0, to: body.count, by: 333) {
            let piece = body[start..<min(body.count, start + 333)]
            bytes += Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        let connection = try HTTPConnection(port: harness.port)
        connection.send(bytes)
        let reply = try connection.readResponse()
        #expect(reply.status == 200 && reply.json["accepted"] as? Int == 40)
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func sends100ContinueBeforeTheBodyAndRefusesEarlyWithout() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 2)
        let body = EventLines.body(batch.lines)
        let head = HTTPRequestText.make(
            "POST", "/v1/events",
            headers: headers(harness) + [
                ("Expect", "100-continue"),
                ("Content-Length", "\(body.count)"),
            ],
            contentLength: false)
        let connection = try HTTPConnection(port: harness.port)
        connection.send(head)
        #expect(try connection.readResponse().status == 100)
        connection.send(body)
        let reply = try connection.readResponse()
        #expect(reply.status == 200 && reply.json["accepted"] as? Int == 4)
        // A wrong key: the final status comes instead of 100 Continue, and the body is never needed.
        let refused = try HTTPConnection(port: harness.port)
        refused.send(
            HTTPRequestText.make(
                "POST", "/v1/events",
                headers: [
                    ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                    ("Authorization", "Bearer pwk_wrong"), ("Expect", "100-continue"),
                    ("Content-Length", "\(body.count)"),
                ],
                contentLength: false))
        #expect(try refused.readResponse().status == 401)
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func curlPostsPlainAndGzipFiles() throws {
        let harness = try CollectorHarness()
        let batch = EventLines.batch(pairs: 3)
        let file = harness.folder.path("batch.ndjson.gz")
        FileManager.default.createFile(atPath: file, contents: Data(Gzip.deflate(EventLines.body(batch.lines))))
        let curl = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/curl"))
        let out = try curl.runBlocking([
            "-sS", "-X", "POST", "--data-binary", "@\(file)", "-H", "Content-Type: application/x-ndjson",
            "-H", "Content-Encoding: gzip", "-H", "X-Paywall-Forwarding: device",
            "-H", "Authorization: Bearer \(harness.key)", "http://127.0.0.1:\(harness.port)/v1/events",
        ])
        #expect(out.status == 0)
        #expect(out.stdout == "{\"accepted\":6,\"duplicates\":0,\"quarantined\":0,\"rejected\":[]}")
        #expect(try harness.storedIDs() == Set(batch.ids))
    }
}
