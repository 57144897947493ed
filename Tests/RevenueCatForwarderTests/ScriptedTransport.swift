import Foundation
import PaywallLock
import RevenueCatForwarder

/// A fake transport for fast tests: answers from a script (then 200) and records requests.
final class ScriptedTransport: HTTPTransport {
    private let state = Lock((script: [Result<HTTPResponse, TransportError>](), requests: [HTTPRequest]()))

    init(_ script: [Result<HTTPResponse, TransportError>] = []) {
        state.withLock { $0.script = script }
    }

    func enqueue(_ outcomes: Result<HTTPResponse, TransportError>...) { state.withLock { $0.script += outcomes } }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Event ids per request, parsed from the bodies.
    var idsPerRequest: [[String]] {
        requests.map { request in
            let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]
            let events = object?["events"] as? [[String: Any]] ?? []
            return events.compactMap { $0["id"] as? String }
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let outcome = state.withLock { state -> Result<HTTPResponse, TransportError> in
            state.requests.append(request)
            return state.script.isEmpty
                ? .success(HTTPResponse(status: 200, body: Data("{}".utf8))) : state.script.removeFirst()
        }
        return try outcome.get()
    }
}
