import Foundation
import PaywallCore

/// The collector's `POST /v1/events`, spelled once for both ends: the collector (PaywallCollector)
/// serves it and the uploader (PaywallUploader's `CollectorDestination`) posts to it. A request is
/// NDJSON events (``mediaType``, optionally ``gzip``) with the write key as
/// `Authorization: Bearer <key>` and the side that forwards impressions to RevenueCat in
/// ``Header/forwarding``; a 2xx carries a ``CollectorAnswer``.
public enum CollectorWire {
    /// The route, `/v1/events`.
    public static let path = "/v1/events"
    /// The method, `POST`.
    public static let method = "POST"
    /// The request body's media type: one JSON event per line.
    public static let mediaType = "application/x-ndjson"
    /// The one content coding besides none.
    public static let gzip = "gzip"
    /// The media type of every answer, counts and errors alike.
    public static let answerMediaType = "application/json"
    /// What precedes the write key in ``Header/authorization``.
    public static let bearerPrefix = "Bearer "

    /// The header names of the route.
    public enum Header {
        /// The write key, as ``CollectorWire/bearerPrefix`` followed by the key.
        public static let authorization = "Authorization"
        /// ``CollectorWire/mediaType`` on a request, ``CollectorWire/answerMediaType`` on an answer.
        public static let contentType = "Content-Type"
        /// ``CollectorWire/gzip`` when the body is compressed; absent (or `identity`) otherwise.
        public static let contentEncoding = "Content-Encoding"
        /// The body's length as sent; a longer one is refused before it is read.
        public static let contentLength = "Content-Length"
        /// Who forwards the request's impressions to RevenueCat: a ``ForwardingParty`` raw value.
        public static let forwarding = ForwardingParty.headerName
        /// The sender's version (``ProductVersion/current``).
        public static let version = "X-Version"
        /// How many times this batch was sent before (0 the first time).
        public static let retryCount = "X-Retry-Count"
        /// On a 503 or 429 answer: the seconds to wait before sending again.
        public static let retryAfter = "Retry-After"
        /// On a 401 answer: the scheme the collector expects.
        public static let wwwAuthenticate = "WWW-Authenticate"
    }

    /// Why `endpoint` cannot be a collector's base URL, or nil when it can: it must be an absolute
    /// http(s) URL with a host, and without a query (`?…`) or fragment (`#…`), since the route is
    /// appended to its path and a query or fragment would swallow it.
    public static func endpointProblem(_ endpoint: URL) -> String? {
        guard let scheme = endpoint.scheme?.lowercased(), ["http", "https"].contains(scheme), endpoint.host != nil
        else { return "it is not an absolute http(s) URL" }
        if endpoint.query != nil {
            return "it has a query (the part from '?'), which a collector's base URL cannot have"
        }
        if endpoint.fragment != nil {
            return "it has a fragment (the part from '#'), which a collector's base URL cannot have"
        }
        return nil
    }

    /// The route on the collector at `endpoint` (its base URL): `{endpoint}/v1/events`, trailing
    /// slashes of `endpoint` dropped.
    public static func url(on endpoint: URL) -> URL {
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? endpoint.appendingPathComponent(String(path.dropFirst()))
    }
}
