import Foundation
import PaywallLock

/// A stand-in for RevenueCat's events endpoint: a real HTTP/1.1 server on 127.0.0.1 (ephemeral
/// port) that records every request, checks it against RevenueCat's documented events API
/// (``RevenueCatRequestValidator``), and answers with scripted faults.
///
/// ```swift
/// let standIn = try RevenueCatStandIn()
/// standIn.enqueue(.status(503), .retryAfter("30"), .closeMidResponse)   // then `.accepted`
/// // point the forwarder at standIn.baseURL …
/// #expect(standIn.violations.isEmpty)
/// ```
public final class RevenueCatStandIn: Sendable {
    /// One request and how it was answered.
    public struct Exchange: Sendable {
        /// 0-based arrival order.
        public var index: Int
        /// The request as received.
        public var request: ReceivedHTTPRequest
        /// The event ids in the body, in body order (empty when the body is unreadable).
        public var eventIDs: [String]
        /// How it was answered.
        public var response: StandInResponse
        /// Violations of RevenueCat's documented events API found in the request.
        public var violations: [String]
    }

    private struct State {
        var script: [StandInResponse] = []
        var fallback: @Sendable (Int, ReceivedHTTPRequest) -> StandInResponse = { _, _ in .accepted }
        var exchanges: [Exchange] = []
        var keepExchanges = true
        var requestCount = 0
        var acceptedIDs: [String: Int] = [:]
        var violations: [String] = []
    }

    /// Owns the mutable state; shared with the server's handler.
    private final class Book: Sendable {
        let state = Lock(State())
    }

    private let book = Book()
    private let server: LoopbackHTTPServer

    /// Starts the stand-in.
    /// - Parameter recordExchanges: keep every request (headers and body) for inspection; the
    ///   benchmark turns it off to keep memory flat. Counts, accepted ids and violations are always kept.
    /// - Throws: ``StandInError`` when it cannot listen on 127.0.0.1.
    public init(recordExchanges: Bool = true) throws {
        let book = self.book
        book.state.withLock { $0.keepExchanges = recordExchanges }
        self.server = try LoopbackHTTPServer { request in Self.handle(request, book: book) }
    }

    deinit { server.stop() }

    /// The port on 127.0.0.1.
    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:<port>` — the forwarder's endpoint.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Queues responses for the next requests, in order; after the queue runs out the
    /// fallback answers (``StandInResponse/accepted`` unless ``respondByDefault(_:)`` changed it).
    public func enqueue(_ responses: StandInResponse...) { book.state.withLock { $0.script += responses } }

    /// Sets the answer for requests the script does not cover; receives the request index.
    public func respondByDefault(_ responder: @escaping @Sendable (Int, ReceivedHTTPRequest) -> StandInResponse) {
        book.state.withLock { $0.fallback = responder }
    }

    /// Every exchange so far (empty when recording is off).
    public var exchanges: [Exchange] { book.state.withLock { $0.exchanges } }
    /// How many requests arrived.
    public var requestCount: Int { book.state.withLock { $0.requestCount } }
    /// Connections accepted and bytes received, counted before any parsing: a redirect target
    /// that must receive nothing checks both are 0.
    public var received: (connections: Int, bytes: Int) { server.received }
    /// Every violation so far, prefixed with the request index.
    public var violations: [String] { book.state.withLock { $0.violations } }
    /// Event id → how many times it arrived in a request answered with a complete 2xx.
    public var acceptedEventIDs: [String: Int] { book.state.withLock { $0.acceptedIDs } }

    /// Stops listening and closes every connection.
    public func stop() { server.stop() }

    private static func handle(_ request: ReceivedHTTPRequest, book: Book) -> StandInResponse {
        let problems = RevenueCatRequestValidator.violations(in: request)
        let ids = eventIDs(in: request.body)
        return book.state.withLock { state in
            let index = state.requestCount
            state.requestCount += 1
            let response = state.script.isEmpty ? state.fallback(index, request) : state.script.removeFirst()
            if response.isCompleteSuccess { for id in ids { state.acceptedIDs[id, default: 0] += 1 } }
            state.violations += problems.map { "request \(index): \($0)" }
            if state.keepExchanges {
                state.exchanges.append(
                    Exchange(index: index, request: request, eventIDs: ids, response: response, violations: problems))
            }
            return response
        }
    }

    private static func eventIDs(in body: Data) -> [String] {
        guard case .object(let root)? = JSONValue.parse(body), case .array(let events)? = root["events"] else {
            return []
        }
        return events.compactMap { event in
            guard case .object(let fields) = event, case .string(let id)? = fields["id"] else { return nil }
            return id
        }
    }
}
