import Foundation
import PaywallCore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// The forwarder with the real `URLSessionTransport` against the real loopback stand-in.
struct ForwarderStandInTests {
    let time = TestTime()
    let outbox = InMemoryOutbox()

    /// A forwarder on the real transport. The default timeout only guards against a hang: under the
    /// sanitizers and the whole parallel suite a loopback answer can take longer than a few seconds
    /// (a 5 s timeout once turned two refusals into timeouts); only the test of a late answer times out
    /// on purpose.
    func forwarder(_ endpoint: URL, timeout: Duration = Eventually.patience) -> Forwarder {
        Forwarder(
            outbox: outbox, transport: URLSessionTransport(timeout: timeout),
            configuration: Fixtures.configuration(endpoint: endpoint), now: time.now)
    }

    static let transientFaults: [StandInResponse] = [
        .status(500), .status(502), .status(503), .status(404),
        .retryAfter("2"), .retryAfter("Sun, 30 Nov 2025 10:54:20 GMT", status: 503),  // TestTime + 60 s
        .delayed(.seconds(120), .accepted),  // far past the 5 s client timeout of that case's first pass
        .closeMidResponse, .malformed, .hangUp,
    ]

    @Test(arguments: transientFaults)
    func transientFaultKeepsTheBatchAndTheRetryResendsTheSameIds(fault: StandInResponse) async throws {
        // Given 60 stored impressions and a stand-in whose first answer is the fault
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(fault)
        outbox.add(Fixtures.impressions(60))
        // When a pass runs (with a 5 s timeout where the fault is a late answer; the stand-in's stop wakes it)
        let timeout: Duration = if case .delayed = fault { .seconds(5) } else { Eventually.patience }
        guard case .completed(let first) = try await forwarder(standIn.baseURL, timeout: timeout).forwardOnce() else {
            throw Busy()
        }
        // Then the first batch is kept for a retry, RevenueCat counts as unavailable, nothing is lost or dead
        #expect(first.delivered == 0 && first.willRetry == 50 && first.revenueCatUnavailable)
        #expect(outbox.ids(in: .pending).count == 60 && outbox.deadLetters.isEmpty)
        let retried = outbox.entries.values.filter { $0.attempts == 1 }
        #expect(retried.count == 50 && retried.allSatisfy { $0.nextAttemptAt > time.current })
        // When time passes beyond the backoff (or Retry-After) and a new forwarder runs
        time.advance(ms: 3_600_000)
        guard case .completed(let second) = try await forwarder(standIn.baseURL).forwardOnce() else { throw Busy() }
        // Then everything is delivered, and the retry carried exactly the ids of the failed request
        #expect(second.delivered == 60 && outbox.ids(in: .delivered).count == 60)
        let exchanges = standIn.exchanges
        let retry = try #require(exchanges.first { $0.request.header("X-Retry-Count") == "1" })
        #expect(retry.eventIDs == exchanges[0].eventIDs)
        #expect(Set(standIn.acceptedEventIDs.keys) == Set(Fixtures.impressions(60).map(\.id.uuidString)))
        #expect(standIn.violations == [])
    }

    @Test(arguments: [400, 401, 403, 413, 422])
    func refusalDeadLettersTheBatchWithStatusAndExcerpt(status: Int) async throws {
        // Given a stand-in refusing the first request
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(status, body: "{\"code\":7225,\"message\":\"refused \(status)\"}"))
        outbox.add(Fixtures.impressions(60))
        // When a pass runs
        guard case .completed(let summary) = try await forwarder(standIn.baseURL).forwardOnce() else { throw Busy() }
        // Then 50 are dead letters with the status and the body excerpt, 10 delivered, none lost
        #expect(summary.deadLettered == 50 && summary.delivered == 10 && !summary.revenueCatUnavailable)
        #expect(
            outbox.deadLetters.allSatisfy {
                $0.status == status && $0.reason == "{\"code\":7225,\"message\":\"refused \(status)\"}"
            })
        #expect(outbox.ids(in: .dead).union(outbox.ids(in: .delivered)).count == 60)
        // And a later pass does not retry them automatically
        time.advance(ms: 86_400_000)
        _ = try await forwarder(standIn.baseURL).forwardOnce()
        #expect(standIn.requestCount == 2 && outbox.ids(in: .dead).count == 50)
    }

    @Test func unreachableEndpointKeepsEverythingPending() async throws {
        // Given a port that refuses connections (held for the test: no stand-in of another test can take it)
        let refusing = try RefusingPort()
        outbox.add(Fixtures.impressions(5))
        // When a pass runs
        guard case .completed(let summary) = try await forwarder(refusing.baseURL).forwardOnce() else {
            throw Busy()
        }
        withExtendedLifetime(refusing) {}
        // Then RevenueCat is unavailable and all 5 wait for a retry
        #expect(summary.revenueCatUnavailable && summary.willRetry == 5 && summary.requests == 1)
        #expect(outbox.ids(in: .pending).count == 5)
    }

    @Test func bodyOnTheWireIsTheGoldenBody() async throws {
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        outbox.add(WireFormatGoldenTests.threeImpressions())
        _ = try await forwarder(standIn.baseURL).forwardOnce()
        let exchange = try #require(standIn.exchanges.first)
        let golden = try Data(contentsOf: WireFormatGoldenTests.golden("body-three-impressions.json"))
        #expect(exchange.request.body == golden)
        #expect(exchange.request.header("Authorization") == "Bearer \(Fixtures.secret)")
        #expect(exchange.request.header("X-Retry-Count") == "0" && exchange.request.header("X-Platform") == "iOS")
        #expect(exchange.violations == [])
    }

    struct Busy: Error {}
}

extension StandInResponse: CustomTestStringConvertible {
    public var testDescription: String {
        switch self {
        case .status(let code, _, let headers): headers.isEmpty ? "HTTP \(code)" : "HTTP \(code) \(headers)"
        case .delayed(let delay, let inner): "\(inner.testDescription) after \(delay)"
        case .hangUp: "hang up"
        case .closeMidResponse: "close mid-response"
        case .malformed: "malformed response"
        }
    }
}
