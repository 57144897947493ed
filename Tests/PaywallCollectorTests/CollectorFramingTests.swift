import Foundation
import PaywallTestSupport
import Testing

/// Requests whose framing a front end could read differently from the collector (the way one
/// request is smuggled inside another) are refused with 400 and the connection is closed, so
/// nothing hidden in their bodies is ever served: two `Content-Length` headers, whitespace
/// before a header's colon, `Transfer-Encoding` with `Content-Length`. Raw bytes on a socket to
/// the built `serve`.
@Suite(.serialized)
struct CollectorFramingTests {
    /// Headers of an authenticated upload, without any framing header.
    func authHeaders(_ harness: CollectorHarness) -> String {
        "Host: 127.0.0.1\r\nAuthorization: Bearer \(harness.key)\r\nContent-Type: application/x-ndjson\r\n"
            + "X-Paywall-Forwarding: device\r\n"
    }

    /// Sends `request` on a fresh connection; returns the one answer, whether the server closed the
    /// connection after it, and every byte it sent past the first answer.
    func exchange(_ request: String, port: Int) throws -> (reply: HTTPReply, closed: Bool, rest: String) {
        let connection = try HTTPConnection(port: port, receiveTimeout: 20)
        connection.send(request)
        let reply = try connection.readResponse()
        let closed = connection.waitForClose()
        return (reply, closed, String(decoding: connection.unread, as: UTF8.self))
    }

    /// A complete upload of one new event, to hide in another request's body.
    func hiddenUpload(_ harness: CollectorHarness) -> (text: String, id: String) {
        let event = EventLines.presentation()
        let line = event.lines[0] + "\n"
        return (
            "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "Content-Length: \(line.utf8.count)\r\n\r\n" + line,
            event.ids[0]
        )
    }

    @Test func refusesTwoContentLengthsWhicheverComesFirst() throws {
        let harness = try CollectorHarness()
        let hidden = hiddenUpload(harness)
        let body = "\n\n\n\n\n" + hidden.text
        for order in [
            ["5", "\(body.utf8.count)"], ["\(body.utf8.count)", "5"], ["\(body.utf8.count)", "\(body.utf8.count)"],
        ] {
            let request =
                "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "Content-Length: \(order[0])\r\n"
                + "Content-Length: \(order[1])\r\n\r\n" + body
            let result = try exchange(request, port: harness.port)
            #expect(result.reply.status == 400, "Content-Length \(order)")
            #expect(result.reply.text.contains("more than one Content-Length"))
            #expect(result.closed)
            #expect(!result.rest.contains("HTTP/1.1"), "a second answer came back: \(result.rest)")
        }
        #expect(try !harness.storedIDs().contains(hidden.id))
        #expect(harness.events == 0)
    }

    @Test func refusesWhitespaceBeforeAHeadersColon() throws {
        let harness = try CollectorHarness()
        let hidden = hiddenUpload(harness)
        let body = "\n\n\n" + hidden.text
        for name in ["Content-Length :", "Content-Length\t:", "Transfer-Encoding :", "X-Other :"] {
            let value = name.hasPrefix("Transfer") ? "chunked" : "3"
            let request =
                "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "\(name) \(value)\r\n\r\n" + body
            let result = try exchange(request, port: harness.port)
            #expect(result.reply.status == 400, "\(name.debugDescription)")
            #expect(result.reply.text.contains("header name"))
            #expect(result.closed)
            #expect(!result.rest.contains("HTTP/1.1"), "a second answer came back: \(result.rest)")
        }
        #expect(try !harness.storedIDs().contains(hidden.id))
    }

    @Test func refusesTransferEncodingWithContentLength() throws {
        let harness = try CollectorHarness()
        let hidden = hiddenUpload(harness)
        let chunkedEmpty = "0\r\n\r\n"
        let requests = [
            // chunked wins for a server, Content-Length for a front end: the rest is a new request.
            "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "Transfer-Encoding: chunked\r\n"
                + "Content-Length: \(chunkedEmpty.utf8.count)\r\n\r\n" + chunkedEmpty + hidden.text,
            "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "Content-Length: 5\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + chunkedEmpty + hidden.text,
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
                + chunkedEmpty + "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            "POST /v1/events HTTP/1.1\r\n" + authHeaders(harness) + "Transfer-Encoding: chunked\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + chunkedEmpty + hidden.text,
        ]
        for request in requests {
            let result = try exchange(request, port: harness.port)
            #expect(result.reply.status == 400, "\(request.prefix(120))")
            #expect(result.reply.text.contains("Transfer-Encoding"))
            #expect(result.closed)
            #expect(!result.rest.contains("HTTP/1.1"), "a second answer came back: \(result.rest)")
        }
        #expect(try !harness.storedIDs().contains(hidden.id))
        // A plain request on a new connection is served as before.
        let event = EventLines.presentation()
        #expect(try harness.post(EventLines.body(event.lines)).status == 200)
        #expect(try harness.storedIDs() == Set(event.ids))
    }

    @Test func refusesTwoOfAHeaderTheRequestMaySendOnce() throws {
        let harness = try CollectorHarness()
        let event = EventLines.presentation()
        let body = EventLines.body(event.lines)
        for extra in [
            [("X-Paywall-Forwarding", "collector")],  // device, then collector
            [("Authorization", "Bearer \(harness.key)")], [("Content-Type", "text/plain")],
            [("Content-Encoding", "gzip"), ("Content-Encoding", "identity")],
        ] {
            let reply = try harness.post(body, forwarding: "device", extraHeaders: extra)
            #expect(reply.status == 400, "\(extra): \(reply.text)")
            #expect(reply.text.contains("more than one"), "\(reply.text)")
            #expect(!reply.text.contains(harness.key))
        }
        #expect(harness.events == 0)
        // An empty Content-Encoding says no encoding, as its absence does
        let plain = try harness.post(body, extraHeaders: [("Content-Encoding", "")])
        #expect(plain.status == 200, "\(plain.text)")
        #expect(try harness.storedIDs() == Set(event.ids))
    }
}
