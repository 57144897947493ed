/// Why the collector could not start or serve.
public enum CollectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libmicrohttpd refused to start (resources exhausted, or an option it does not support).
    case serverStart
    /// The store has no valid write key, so no client could ever be accepted.
    case noWriteKeys

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .serverStart:
            return "the HTTP server could not start (libmicrohttpd refused its options or ran out of resources); "
                + "check the open-file limit (ulimit -n) against the connection limit"
        case .noWriteKeys:
            return "the store has no write key, so every request would be refused; create one (`WriteKeys.add(name:)`) "
                + "and give it to the app's uploader"
        }
    }
}
