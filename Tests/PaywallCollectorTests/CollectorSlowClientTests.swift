import Foundation
import PaywallGzip
import PaywallTestSupport
import Testing

/// Slow clients and shutdown: a connection that trickles its headers is closed at the header
/// deadline, well before the request timeout (a slow body is not: its headers are in); SIGTERM with
/// a large request in flight still exits 0 within the documented 10 s. The built `serve`.
@Suite(.serialized)
struct CollectorSlowClientTests {
    @Test func headersTrickledPastTheHeaderDeadlineAreCutLongBeforeTheTimeout() throws {
        let harness = try CollectorHarness(arguments: ["--header-timeout", "1", "--timeout", "60"])
        let slow = try HTTPConnection(port: harness.port, receiveTimeout: 45)
        let started = Date()
        slow.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        let stop = AsyncFlag()
        let trickle = Thread {
            while !stop.isRaised, slow.send("a") { usleep(200_000) }
        }
        trickle.start()
        let closed = slow.waitForClose()
        let seconds = Date().timeIntervalSince(started)
        stop.raise()
        #expect(closed)
        #expect(seconds < 30, "cut after \(seconds) s; the request timeout is 60 s")
        // Meanwhile others are served
        #expect(try harness.get("/healthz").status == 200)
    }

    @Test func aSlowBodyIsNotCutByTheHeaderDeadline() throws {
        let harness = try CollectorHarness(arguments: ["--header-timeout", "1", "--timeout", "60"])
        let batch = EventLines.batch(pairs: 2)
        let body = EventLines.body(batch.lines)
        let request = HTTPRequestText.make(
            "POST", "/v1/events",
            headers: [
                ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                ("Authorization", "Bearer \(harness.key)"),
            ], body: body)
        let headerEnd = request.count - body.count
        let connection = try HTTPConnection(port: harness.port)
        connection.send(Array(request[0..<headerEnd]))
        // The body in six pieces over 3 s: three times the header deadline
        let pieces = stride(from: 0, to: body.count, by: (body.count + 5) / 6).map {
            Array(body[$0..<min(body.count, $0 + (body.count + 5) / 6)])
        }
        for piece in pieces {
            usleep(500_000)
            #expect(connection.send(piece))
        }
        let reply = try connection.readResponse()
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func sigtermWithALargeRequestInFlightExitsWithinTheBound() throws {
        let harness = try CollectorHarness()
        // 10,000 distinct junk lines of 1.6 KB: 16 MB gunzipped, the most one request may hold
        var text = ""
        text.reserveCapacity(16_500_000)
        for index in 0..<10_000 { text += "\(index)-" + String(repeating: "z", count: 1_600) + "\n" }
        let compressed = Gzip.deflate(Array(text.utf8))
        let request = HTTPRequestText.make(
            "POST", "/v1/events",
            headers: [
                ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                ("Authorization", "Bearer \(harness.key)"), ("Content-Encoding", "gzip"),
            ], body: compressed)
        let connection = try HTTPConnection(port: harness.port)
        connection.send(request)
        // Once the collector has the whole body, SIGTERM
        _ = try Eventually.holdsBlocking(every: .milliseconds(20)) {
            let metrics = try harness.get("/metrics").text
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("paywall_collector_received_bytes_total ") }
            guard let line, let bytes = Int(line.split(separator: " ").last ?? "") else { return false }
            return bytes >= compressed.count
        }
        let stopped = harness.server.stop(SIGTERM, timeout: 30)
        #expect(stopped.status == 0)
        #expect(stopped.seconds < 10, "exited \(stopped.seconds) s after SIGTERM")
        // The request was stored whole and answered 200, refused as the collector stopped (503), or,
        // when its validation outlasted the grace, cut without an answer and stored nothing: never
        // stored in part
        let reply = try? connection.readResponse()
        #expect(reply == nil || [200, 503].contains(reply?.status ?? 0), "\(reply?.status ?? 0)")
        #expect([0, 10_000].contains(harness.quarantined), "\(harness.quarantined) lines stored")
        #expect(reply?.status != 200 || harness.quarantined == 10_000)
    }
}
