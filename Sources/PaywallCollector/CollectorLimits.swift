/// The collector's bounds; each has a `serve` flag and a default.
public struct CollectorLimits: Sendable, Hashable {
    /// Connections open at once (`--max-connections`, default 1,024); more wait in the kernel's backlog.
    public var maxConnections: Int
    /// Largest request body as sent (`--max-body`, default 1 MiB); over it: 413.
    public var maxBodyBytes: Int
    /// Largest body once gunzipped (`--max-decompressed`, default 16 MiB); over it: 413.
    public var maxDecompressedBytes: Int
    /// Seconds a connection may stay idle, or take to send one whole request (`--timeout`, default
    /// 30): past it the connection is closed, so slow and idle clients cannot hold connections.
    public var timeoutSeconds: Int
    /// Requests validated and waiting for the commit writer (`--queue`, default 256); when full: 503.
    public var queueCapacity: Int
    /// Threads that accept, read and validate requests (default: the number of cores, at least 2).
    public var threads: Int

    /// Creates limits; the defaults are those of `serve`.
    public init(
        maxConnections: Int = 1_024, maxBodyBytes: Int = 1 << 20, maxDecompressedBytes: Int = 16 << 20,
        timeoutSeconds: Int = 30, queueCapacity: Int = 256, threads: Int = 0
    ) {
        self.maxConnections = max(1, maxConnections)
        self.maxBodyBytes = max(1, maxBodyBytes)
        self.maxDecompressedBytes = max(1, maxDecompressedBytes)
        self.timeoutSeconds = max(1, timeoutSeconds)
        self.queueCapacity = max(1, queueCapacity)
        self.threads = threads
    }
}
