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
    /// The send's outcome once it ends, or `nil` when it still runs 600 s on: a hang guard, not a
    /// measure. Wide: the whole suite runs at once on two cores, and tests that block a thread of the
    /// two-thread concurrency pool (a child process waited for, a file polled) kept this send from
    /// running for over 120 s in a whole-suite run while the clock of this guard kept going.
    static func outcome(of send: Task<HTTPResponse, any Error>) async -> Result<HTTPResponse, any Error>? {
        let finished = DispatchSemaphore(value: 0)
        let result = Task.detached { () -> Result<HTTPResponse, any Error> in
            defer { finished.signal() }
            return await send.result
        }
        let ended = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: finished.wait(timeout: .now() + 600) == .success)
            }
        }
        return ended ? await result.value : nil
    }

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
            // Then it ends, with the response or an error: a deadlock never would
            let outcome = try #require(
                await Self.outcome(of: send), "send \(round) was still running 600 s after its cancellation")
            if case .success = outcome { answered += 1 } else { cancelled += 1 }
        }
        // And both endings happened (the cancellation met requests at different moments)
        #expect(answered > 0 && cancelled > 0, "answered \(answered), cancelled \(cancelled)")
    }

    @Test func cancellingSendsAsTheirRedirectArrivesEndsEveryOneOfThem() async throws {
        // Given a stand-in answering a redirect after 0–3 ms (the transport refuses to follow it:
        // FoundationNetworking traps when a task is cancelled while that refusal is on its way)
        let standIn = try RevenueCatStandIn(recordExchanges: false)
        defer { standIn.stop() }
        let transport = URLSessionTransport(timeout: .seconds(5))
        let request = HTTPRequest(
            method: "POST", url: standIn.baseURL.appendingPathComponent("v1/events"),
            headers: [HTTPHeader("Content-Type", "application/json")], body: Data("{}".utf8))
        let location = ["Location": "http://127.0.0.1:9/elsewhere"]
        var redirected = 0
        var cancelled = 0
        for round in 0..<300 {
            standIn.enqueue(.delayed(.microseconds(round % 4 * 1_000), .status(307, body: "", headers: location)))
            // When a send is cancelled after 0–3 ms
            let send = Task { try await transport.send(request) }
            try await Task.sleep(for: .microseconds((round * 7) % 4 * 1_000))
            send.cancel()
            // Then it ends, with the redirect itself or the cancellation, and the process lives on
            let outcome = try #require(
                await Self.outcome(of: send), "send \(round) was still running 600 s after its cancellation")
            switch outcome {
            case .success(let response):
                #expect(response.status == 307)
                redirected += 1
            case .failure: cancelled += 1
            }
        }
        #expect(redirected > 0 && cancelled > 0, "redirected \(redirected), cancelled \(cancelled)")
    }

    /// A data task whose completion never comes (a lost cancellation): it only tells when it was
    /// started and when it was cancelled.
    final class SilentDataTask: CancellableDataTask {
        let resumed = AsyncFlag()
        let cancelled = AsyncFlag()
        func resume() { resumed.raise() }
        func cancel() { cancelled.raise() }
    }

    static let request = HTTPRequest(
        method: "POST", url: URL(string: "http://127.0.0.1:9/v1/events")!,
        headers: [HTTPHeader("Content-Type", "application/json")], body: Data("{}".utf8))

    @Test func aCancelledSendEndsEvenWhenItsTasksCompletionNeverComes() async throws {
        // Given a send whose data task was started and will never complete, not even when cancelled
        let task = SilentDataTask()
        // The total deadline far past the test, so only the cancellation can end the send
        let transport = URLSessionTransport(timeout: .seconds(3_600), makeTask: { _, _ in task })
        let send = Task { try await transport.send(Self.request) }
        await task.resumed.wait()
        // When the send is cancelled
        send.cancel()
        // Then it ends with the cancellation (a key-free transport error), and the task was cancelled
        let outcome = try #require(await Self.outcome(of: send), "the send was still running 600 s on")
        #expect(throws: TransportError.other(detail: "URLError \(URLError.Code.cancelled.rawValue)")) {
            try outcome.get()
        }
        await task.cancelled.wait()
    }

    @Test func aSendCancelledBeforeItStartsEndsWithoutStartingItsTask() async throws {
        // Given a send in a task that is cancelled before it reaches the transport
        let task = SilentDataTask()
        // The total deadline far past the test, so only the cancellation can end the send
        let transport = URLSessionTransport(timeout: .seconds(3_600), makeTask: { _, _ in task })
        let proceed = AsyncFlag()
        let send = Task {
            await proceed.wait()
            return try await transport.send(Self.request)
        }
        send.cancel()
        proceed.raise()
        // Then it ends with the cancellation, and its data task was never started
        let outcome = try #require(await Self.outcome(of: send), "the send was still running 600 s on")
        #expect(throws: TransportError.self) { try outcome.get() }
        #expect(!task.resumed.isRaised)
    }
}
