import Foundation
import PaywallCore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

struct ForwarderStressTests {
    /// A reproducible fault for request `index`: about one request in four fails transiently.
    static func fault(for index: Int) -> StandInResponse {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 0xD1B5_4A32_D192_ED03
        state = (state ^ (state >> 31)) &* 0xBF58_476D_1CE4_E5B9
        switch (state ^ (state >> 29)) % 100 {
        case 0..<5: return .status(500)
        case 5..<9: return .status(503)
        case 9..<12: return .status(404)
        case 12..<16: return .retryAfter("30")
        case 16..<19: return .closeMidResponse
        case 19..<22: return .malformed
        case 22..<24: return .hangUp
        case 24: return .delayed(.seconds(2), .accepted)  // timeout; the stand-in still saw the ids
        default: return .accepted
        }
    }

    @Test func tenThousandImpressionsUnderRandomTransientFaultsAreAllDelivered() async throws {
        // Given 10,000 stored impressions and a stand-in failing about a quarter of requests
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { index, _ in Self.fault(for: index) }
        let outbox = InMemoryOutbox()
        let events = (0..<10_000).map { Fixtures.impression($0) }
        outbox.add(events)
        let time = TestTime()
        var configuration = Fixtures.configuration(endpoint: standIn.baseURL, maxBatches: 100)
        configuration.retryPolicy = RetryPolicy(
            base: .seconds(1), cap: .seconds(300), random: { Double.random(in: 0..<1) })
        let forwarder = Forwarder(
            outbox: outbox, transport: URLSessionTransport(timeout: .seconds(1)),
            configuration: configuration, now: time.now)
        // When passes run until nothing is pending, virtual time jumping past every backoff
        var passes = 0
        while !outbox.ids(in: .pending).isEmpty && passes < 2_000 {
            _ = try await forwarder.forwardOnce()
            time.advance(ms: 301_000)
            passes += 1
        }
        // Then every id reached RevenueCat in a 2xx at least once, none is dead, none invented
        let expected = Set(events.map(\.id.uuidString))
        #expect(outbox.ids(in: .delivered).count == 10_000)
        #expect(outbox.deadLetters.isEmpty)
        #expect(Set(standIn.acceptedEventIDs.keys) == expected)
        let sent = Set(standIn.exchanges.flatMap(\.eventIDs))
        #expect(sent == expected)
        #expect(standIn.violations == [])
        // And faults really happened: some ids were sent more than once, with the same id
        #expect(standIn.requestCount > 200)
        #expect(standIn.exchanges.contains { Int($0.request.header("X-Retry-Count") ?? "0")! >= 1 })
    }
}
