import Dispatch
import Foundation
import PaywallTestSupport
import PaywallWire
import Testing

@testable import PaywallDelivery

/// Cancelling a request in flight, at any moment (before it starts, while it waits, as its
/// response arrives), ends the send at once: FoundationNetworking's own `data(for:)` could
/// deadlock when the cancellation met the response (a hung `PaywallAnalytics.shutdown()`).
struct TransportCancellationTests {
    @Test func cancellingSendsAtRandomMomentsEndsEveryOneOfThem() async throws {
        // Given a stand-in answering after 0–3 ms
        let standIn = try RevenueCatStandIn(recordExchanges: false)
        defer { standIn.stop() }
        let transport = URLSessionTransport(timeout: .seconds(5))
        let request = HTTPRequest(
            method: "POST", url: standIn.baseURL.appendingPathComponent("v1/events"),
            headers: [HTTPHeader("Content-Type", "application/json")], body: Data("{}".utf8))
        var answered = 0
        var cancelled = 0
        for round in 0..<300 {
            standIn.enqueue(.delayed(.microseconds(round % 4 * 1_000), .accepted))
            // When a send is cancelled after 0–3 ms
            let send = Task { try await transport.send(request) }
            try await Task.sleep(for: .microseconds((round * 7) % 4 * 1_000))
            send.cancel()
            // Then it ends, with the response or an error: a deadlock never would. The bound is wide
            // because the whole suite runs at once on two cores and can keep this task waiting for a thread.
            let finished = DispatchSemaphore(value: 0)
            let outcome = Task.detached { () -> Bool in
                defer { finished.signal() }
                return (try? await send.value) != nil
            }
            let ended = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: finished.wait(timeout: .now() + 120) == .success)
                }
            }
            try #require(ended, "send \(round) was still running 120 s after its cancellation")
            if await outcome.value { answered += 1 } else { cancelled += 1 }
        }
        // And both endings happened (the cancellation met requests at different moments)
        #expect(answered > 0 && cancelled > 0, "answered \(answered), cancelled \(cancelled)")
    }
}
