/// Why the collector could not start or serve.
public enum CollectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libmicrohttpd refused to start (resources exhausted, or an option it does not support).
    case serverStart
    /// The store has no valid write key, so no client could ever be accepted.
    case noWriteKeys
    /// Another collector serves this store (`holder` is what its lock file says of it).
    case anotherCollector(holder: String)
    /// The lock file beside the store could not be opened.
    case lockFile(path: String, reason: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .serverStart:
            return "the HTTP server could not start (libmicrohttpd refused its options or ran out of resources); "
                + "check the open-file limit (ulimit -n) against the connection limit"
        case .noWriteKeys:
            return "the store has no write key and no webhook secret, so every request would be refused; create one "
                + "(`WriteKeys.add(name:kind:)`) and give it to the app's uploader or to RevenueCat"
        case .anotherCollector(let holder):
            return "another collector already serves this store (\(holder)); stop it first, or serve another store"
        case .lockFile(let path, let reason):
            return "the collector's lock file \(path) could not be opened (\(reason)); make the store's folder writable"
        }
    }
}
