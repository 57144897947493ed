import Foundation
import PaywallCollector
import PaywallTestSupport
import Testing

/// Connections are bounded: idle ones and slow senders are cut after the timeout, and neither keeps
/// other clients from being served.
@Suite(.serialized)
struct CollectorLimitTests {
    @Test func thousandIdleConnectionsDoNotStopAnotherClientAndAreCutAfterTheTimeout() throws {
        let harness = try CollectorHarness(arguments: ["--timeout", "3", "--max-connections", "1100"])
        let idle = try (0..<1_000).map { _ in try HTTPConnection(port: harness.port, receiveTimeout: 60) }
        let opened = Date()
        // One more client is served while the thousand are open.
        let batch = EventLines.batch(pairs: 1)
        let reply = try harness.post(EventLines.body(batch.lines))
        #expect(reply.status == 200)
        let metrics = try harness.get("/metrics").text
        let open = metrics.split(separator: "\n").first { $0.hasPrefix("paywall_collector_open_connections ") }
        #expect(Int(open?.split(separator: " ").last ?? "") ?? 0 >= 1_000)
        // Every idle one is closed by the server within the timeout plus a generous margin.
        let started = Date()
        var closed = 0
        for connection in idle where connection.waitForClose() {
            // Not before the timeout: the last one was opened after `opened`, the first before it.
            if closed == 0 { #expect(Date().timeIntervalSince(opened) >= 2) }
            closed += 1
        }
        #expect(closed == 1_000)
        #expect(Date().timeIntervalSince(started) < 45)
        #expect(try harness.storedIDs() == Set(batch.ids))
    }

    @Test func aClientSendingAByteASecondIsCutWithoutSlowingOthers() throws {
        let harness = try CollectorHarness(arguments: ["--timeout", "3"])
        let batch = EventLines.batch(pairs: 1)
        let request = HTTPRequestText.make(
            "POST", "/v1/events",
            headers: [
                ("Content-Type", "application/x-ndjson"), ("X-Paywall-Forwarding", "collector"),
                ("Authorization", "Bearer \(harness.key)"),
            ], body: EventLines.body(batch.lines))
        let slow = try HTTPConnection(port: harness.port, receiveTimeout: 1)
        let started = Date()
        var sent = 0
        var others: [Int] = []
        var cut = false
        while Date().timeIntervalSince(started) < 40, sent < request.count {
            guard slow.send([request[sent]]) else {
                cut = true
                break
            }
            sent += 1
            // Every second another client posts a whole batch and is answered.
            others.append(try harness.post(EventLines.body(EventLines.batch(pairs: 1).lines)).status)
            if slow.waitForClose() {
                cut = true
                break
            }
        }
        #expect(cut)
        #expect(sent < request.count)
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(!others.isEmpty && others.allSatisfy { $0 == 200 })
        #expect(try !harness.storedIDs().contains(batch.ids[0]))
    }
}
