import Foundation

extension TransportError {
    /// What went wrong, naming the destination and the host and port the request tried, e.g.
    /// `cannot connect to the collector at 127.0.0.1:9 (connection refused or host unreachable)`.
    /// Names only the URL's host and port, never its path, query or user info.
    public func explained(destination: String, url: URL) -> String {
        let at = "\(destination) at \(Self.hostAndPort(url))"
        switch self {
        case .timedOut: return "\(at) did not answer before the timeout"
        case .cannotConnect(let detail): return "cannot connect to \(at) (\(detail))"
        case .connectionLost: return "the connection to \(at) closed mid-response"
        case .unreadableResponse(let detail): return "the response of \(at) was not valid HTTP (\(detail))"
        case .redirected(let status):
            return "\(at) answered HTTP \(status), a redirect to another address, which is never followed"
        case .other(let detail): return "sending to \(at) failed (\(detail))"
        }
    }

    /// `host:port` of `url`, the port made explicit from the scheme when the URL leaves it out
    /// (`api.example.com:443`); an IPv6 host in brackets (`[::1]:8080`).
    public static func hostAndPort(_ url: URL) -> String {
        let host = url.host ?? "?"
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let port = url.port ?? ["https": 443, "http": 80][url.scheme?.lowercased() ?? ""]
        return port.map { "\(shown):\($0)" } ?? shown
    }
}
