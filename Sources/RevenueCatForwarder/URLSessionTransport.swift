import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession` (FoundationNetworking on Linux), with a per-request
/// timeout. Connections are reused between requests (HTTP keep-alive).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// Creates a transport.
    /// - Parameter timeout: the longest wait for a response; past it the request fails with
    ///   ``TransportError/timedOut``. Rounded up to whole seconds: FoundationNetworking on Linux
    ///   truncates the interval to whole seconds, so 0.4 s would time out at once.
    public init(timeout: Duration = .seconds(30)) {
        let configuration = URLSessionConfiguration.ephemeral
        let exact = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let seconds = max(1, exact.rounded(.up))
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request` and returns the response of any status.
    /// - Throws: ``TransportError`` when no usable HTTP response arrived.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.transportError(error)
        } catch {
            throw TransportError.other(detail: String(describing: type(of: error)))
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.unreadableResponse(detail: "not an HTTP response")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Maps a `URLError` to a key-free ``TransportError``.
    static func transportError(_ error: URLError) -> TransportError {
        switch error.code {
        case .timedOut: .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            .cannotConnect(detail: "URLError \(error.code.rawValue)")
        case .networkConnectionLost: .connectionLost
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
             .zeroByteResource:
            .unreadableResponse(detail: "URLError \(error.code.rawValue)")
        default: .other(detail: "URLError \(error.code.rawValue)")
        }
    }
}
