import Foundation
import PaywallCore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

struct ForwarderTests {
    let time = TestTime()
    let outbox = InMemoryOutbox()

    func forwarder(_ transport: ScriptedTransport, maxBatches: Int = 10) -> Forwarder {
        Forwarder(
            outbox: outbox, transport: transport,
            configuration: Fixtures.configuration(endpoint: URL(string: "http://127.0.0.1:1")!, maxBatches: maxBatches),
            now: time.now)
    }

    func summary(_ pass: ForwardingPass) throws -> ForwardingSummary {
        guard case .completed(let summary) = pass else { throw PassWasBusy() }
        return summary
    }

    struct PassWasBusy: Error {}

    @Test func sendsBatchesOfAtMostFiftyInOccurredAtOrder() async throws {
        // Given 120 impressions stored out of order
        outbox.add(Fixtures.impressions(120).shuffled())
        let transport = ScriptedTransport()
        // When one pass runs
        let result = try summary(try await forwarder(transport).forwardOnce())
        // Then three requests of 50, 50 and 20 carry every id once, in occurred_at order
        #expect(transport.idsPerRequest.map(\.count) == [50, 50, 20])
        #expect(transport.idsPerRequest.flatMap { $0 } == Fixtures.impressions(120).map(\.id.uuidString))
        #expect(
            result.delivered == 120 && result.requests == 3 && result.stop == .nothingDue
                && !result.revenueCatUnavailable)
        #expect(outbox.ids(in: .delivered).count == 120)
        #expect(transport.requests.allSatisfy { $0.header("X-Retry-Count") == "0" })
        #expect(outbox.leaseOwner == nil)
    }

    @Test func maxBatchesBoundsAPass() async throws {
        outbox.add(Fixtures.impressions(120))
        let result = try summary(try await forwarder(ScriptedTransport(), maxBatches: 2).forwardOnce())
        #expect(result.delivered == 100 && result.stop == .batchLimit)
        #expect(outbox.ids(in: .pending).count == 20)
    }

    @Test func anotherHoldersLeaseMakesThePassBusyAndSendsNothing() async throws {
        // Given another process holds an unexpired lease
        outbox.add(Fixtures.impressions(3))
        #expect(try outbox.acquireLease(owner: "other", now: time.current, durationMs: 60_000))
        let transport = ScriptedTransport()
        // When a pass starts / Then it is busy and sends nothing
        #expect(try await forwarder(transport).forwardOnce() == .busy)
        #expect(transport.requests.isEmpty)
        // And once the lease expires a pass runs
        time.advance(ms: 60_001)
        #expect(try summary(try await forwarder(transport).forwardOnce()).delivered == 3)
    }

    @Test func backoffIsStoredInTheOutboxAndRespectedByTheNextPass() async throws {
        // Given a 503 for the first request
        outbox.add(Fixtures.impressions(10))
        let transport = ScriptedTransport([.success(HTTPResponse(status: 503))])
        let start = time.current
        // When a pass runs
        let first = try summary(try await forwarder(transport).forwardOnce())
        // Then the batch waits 500 ms (1 s · 2^0 · jitter 0.5) with one attempt recorded
        #expect(first.willRetry == 10 && first.revenueCatUnavailable && first.nextAttemptAt == start + 500)
        #expect(
            outbox.entries.values.allSatisfy {
                $0.attempts == 1 && $0.nextAttemptAt == start + 500 && $0.state == .pending
            })
        // And a new forwarder (as in a new process) sends nothing before that time
        let early = try summary(try await forwarder(transport).forwardOnce())
        #expect(early.requests == 0 && transport.requests.count == 1)
        // And after it, resends the same ids with X-Retry-Count 1
        time.advance(ms: 500)
        #expect(try summary(try await forwarder(transport).forwardOnce()).delivered == 10)
        #expect(transport.idsPerRequest[0] == transport.idsPerRequest[1])
        #expect(transport.requests[1].header("X-Retry-Count") == "1")
    }

    @Test func retryAfterIsStoredAsTheNextAttemptTime() async throws {
        outbox.add(Fixtures.impressions(1))
        let transport = ScriptedTransport([.success(HTTPResponse(status: 429, headers: ["Retry-After": "120"]))])
        let result = try summary(try await forwarder(transport).forwardOnce())
        #expect(result.nextAttemptAt == time.current + 120_000)
    }

    @Test func refusedBatchIsDeadLetteredAndThePassGoesOn() async throws {
        // Given a 400 for the first batch of two
        outbox.add(Fixtures.impressions(60))
        let transport = ScriptedTransport([
            .success(HTTPResponse(status: 400, body: Data("{\"message\":\"bad\"}".utf8)))
        ])
        // When a pass runs
        let result = try summary(try await forwarder(transport).forwardOnce())
        // Then 50 are dead with status and excerpt, the other 10 delivered
        #expect(result.deadLettered == 50 && result.delivered == 10 && !result.revenueCatUnavailable)
        #expect(outbox.deadLetters.count == 50)
        #expect(
            outbox.deadLetters.allSatisfy {
                $0.status == 400 && $0.reason == "{\"message\":\"bad\"}" && $0.deadAt == time.current
            })
        // And requeueing puts them back as fresh pending items that the next pass delivers
        #expect(try forwarder(transport).requeueDeadLetters() == 50)
        #expect(outbox.deadLetters.allSatisfy { $0.requeuedAt == time.current })
        #expect(try summary(try await forwarder(transport).forwardOnce()).delivered == 50)
        #expect(outbox.ids(in: .delivered).count == 60)
    }

    @Test func aKeyEchoedByTheServerNeverReachesTheDeadLetterReason() async throws {
        outbox.add(Fixtures.impressions(1))
        let echo = "{\"message\":\"invalid key Bearer \(Fixtures.secret) for this app\"}"
        let transport = ScriptedTransport([.success(HTTPResponse(status: 401, body: Data(echo.utf8)))])
        _ = try await forwarder(transport).forwardOnce()
        let reason = try #require(outbox.deadLetters.first?.reason)
        #expect(!reason.contains(Fixtures.secret))
        #expect(reason.contains("(redacted)"))
    }

    @Test func transportErrorStopsThePassAndMarksRevenueCatUnavailable() async throws {
        outbox.add(Fixtures.impressions(120))
        let transport = ScriptedTransport([.failure(.cannotConnect(detail: "refused"))])
        let result = try summary(try await forwarder(transport).forwardOnce())
        #expect(result.requests == 1 && result.willRetry == 50 && result.revenueCatUnavailable)
        #expect(result.lastFailure?.contains("cannot connect") == true)
        #expect(outbox.ids(in: .pending).count == 120)
    }
}
