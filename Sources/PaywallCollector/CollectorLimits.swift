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
    /// Requests per second each write key may make, on average, with bursts of twice as many
    /// (`--key-rate`, default 0: no limit); past it: 429 with `Retry-After`.
    public var keyRate: Double
    /// Seconds a new connection may take to send its first request's headers (`--header-timeout`,
    /// default 5; at most `timeoutSeconds`): past it the connection is closed, so clients that
    /// trickle their headers hold a connection slot for seconds, not for the whole timeout.
    public var headerTimeoutSeconds: Int
    /// Requests validated and waiting for the commit writer (`--queue`, default 256); when full: 503.
    public var queueCapacity: Int
    /// Threads that accept, read and validate requests (default: the number of cores, at least 2).
    public var threads: Int
    /// Lines in one request body once gunzipped (`--max-lines`, default 10,000; the uploader sends
    /// at most 1,000): counted before anything is validated, so a small gzip body of millions of
    /// tiny lines costs no memory per line; over it: 413.
    public var maxLines: Int
    /// Refused lines listed in one answer's `rejected` (`--max-rejections`, default 100); the rest
    /// are counted in `rejected_omitted`, so the answer stays small whatever the body holds.
    public var maxRejections: Int
    /// Bytes of quarantined lines one request keeps whole (`--max-quarantine-bytes`, default
    /// 256 KiB): past it, each further refused line keeps its first 512 bytes and the SHA-256 of
    /// the whole line (as `import` does for a line over 1 MiB), so the store cannot be grown by
    /// far more than a request's size through the quarantine.
    public var maxQuarantineBytes: Int
    /// Bytes of refused lines each write key may have kept in the quarantine per day
    /// (`--key-quarantine-bytes`, default 64 MiB; a bucket refilled continuously): a request whose
    /// refused lines would pass it is answered 429 with `Retry-After` and nothing of it is stored.
    public var keyQuarantineBytes: Int
    /// The size the store's WAL file is kept at or below while no reader holds it (`--max-wal`,
    /// default 64 MiB, at least 1 MiB): the WAL starts over from a quarter of it and is cut back to
    /// that after a long report ended.
    public var maxWALBytes: Int

    /// Creates limits; the defaults are those of `serve`.
    public init(
        maxConnections: Int = 1_024, maxBodyBytes: Int = 1 << 20, maxDecompressedBytes: Int = 16 << 20,
        timeoutSeconds: Int = 30, queueCapacity: Int = 256, threads: Int = 0, maxLines: Int = 10_000,
        maxRejections: Int = 100, maxQuarantineBytes: Int = 256 << 10, headerTimeoutSeconds: Int = 5,
        keyRate: Double = 0, keyQuarantineBytes: Int = 64 << 20, maxWALBytes: Int = 64 << 20
    ) {
        self.keyQuarantineBytes = max(1, keyQuarantineBytes)
        self.maxWALBytes = max(1 << 20, maxWALBytes)
        self.keyRate = keyRate.isFinite ? max(0, keyRate) : 0
        self.headerTimeoutSeconds = max(1, headerTimeoutSeconds)
        self.maxLines = max(1, maxLines)
        self.maxRejections = max(0, maxRejections)
        self.maxQuarantineBytes = max(0, maxQuarantineBytes)
        self.maxConnections = max(1, maxConnections)
        self.maxBodyBytes = max(1, maxBodyBytes)
        self.maxDecompressedBytes = max(1, maxDecompressedBytes)
        self.timeoutSeconds = max(1, timeoutSeconds)
        self.queueCapacity = max(1, queueCapacity)
        self.threads = threads
    }
}
