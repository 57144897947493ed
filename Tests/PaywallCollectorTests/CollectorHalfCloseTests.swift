import Foundation
import PaywallTestSupport
import Testing

/// A client that half-closes its connection (`shutdown(SHUT_WR)`) once its request is sent still
/// gets its answer, also when other requests share its group commit (it used to get none in about
/// half of such rounds, its events stored all the same). The built `serve`, raw sockets.
@Suite(.serialized)
struct CollectorHalfCloseTests {
    static func request(_ harness: CollectorHarness, _ batch: (lines: [String], ids: [String])) -> [UInt8] {
        HTTPRequestText.make(
            "POST", "/v1/events",
            headers: [
                ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                ("Authorization", "Bearer \(harness.key)"), ("Connection", "keep-alive"),
            ], body: EventLines.body(batch.lines))
    }

    @Test func aHalfClosedClientIsAnsweredAlsoBesideOtherRequests() throws {
        let harness = try CollectorHarness()
        var answered = 0
        var ids: [String] = []
        for _ in 0..<20 {
            // Given a request on an open connection and a half-closed one sent together
            let open = try HTTPConnection(port: harness.port, receiveTimeout: 30)
            let half = try HTTPConnection(port: harness.port, receiveTimeout: 30)
            let first = EventLines.batch(pairs: 1)
            let second = EventLines.batch(pairs: 1)
            ids += first.ids + second.ids
            open.send(Self.request(harness, first))
            half.send(Self.request(harness, second))
            shutdown(half.descriptor, Int32(SHUT_WR))
            // Then both are answered 200
            #expect(try open.readResponse().status == 200)
            let reply = try? half.readResponse()
            if reply?.status == 200 { answered += 1 }
        }
        #expect(answered == 20, "\(20 - answered) of 20 half-closed clients got no answer")
        #expect(try harness.storedIDs() == Set(ids))
    }
}
