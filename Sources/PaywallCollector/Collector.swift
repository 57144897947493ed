import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallWire

/// The collector (`paywall-analytics serve`): takes NDJSON event batches over HTTP from many app
/// installs into one ``EventStore``, validated exactly as `import` validates them, answering 200 only
/// once a request's events are committed and synced (requests that arrive together share one group
/// commit), with write keys, metrics and bounds on everything a client controls.
///
/// ```swift
/// let socket = try ListenSocket.bind(host: "127.0.0.1", port: 8080)
/// let collector = try Collector(store: store, socket: socket, limits: CollectorLimits(), now: .system)
/// // … on SIGTERM:
/// collector.shutdown()
/// ```
public final class Collector: Sendable {
    /// The port the collector listens on (the system's choice when 0 was asked).
    public let port: Int
    /// The metrics `GET /metrics` renders.
    public let metrics: CollectorMetrics

    private let server: HTTPServer
    private let queue: CommitQueue
    private let handler: CollectorHandler
    /// Checkpoints the store's WAL off the commit path, so a group commit never copies pages into
    /// the main file before its requests are answered, and keeps the WAL file within `--max-wal`
    /// (it starts over under continuous writes, and is cut back once a long report ends).
    private let checkpointer: BackgroundCheckpointer
    /// Probes the writer when no commit came for a while, so `/healthz` stays current.
    private let prober: HealthProber

    /// Starts serving on `socket`: the collector owns it once this returns (when it throws, the
    /// socket is still the caller's to close).
    ///
    /// - Parameters:
    ///   - store: the central store; its connection is switched to `synchronous = NORMAL`, and the
    ///     commit queue flushes the WAL (one `fdatasync` for the groups committed meanwhile) before a
    ///     request is answered: every 200 is on disk.
    ///   - log: one line per notable event (never a key, a user id or a payload).
    ///   - committed: called on the writer thread after each commit that stored impressions for this
    ///     store's outbox (the executable triggers the RevenueCat forwarding loop with it).
    /// - Throws: ``CollectorError`` (`.noWriteKeys`, `.serverStart`) or `StorageError` (the store cannot
    ///   be written, e.g. locked by another process).
    public init(
        store: EventStore, socket: ListenSocket, limits: CollectorLimits, now: Now,
        log: @escaping @Sendable (String) -> Void = { _ in },
        committed: @escaping @Sendable () -> Void = {},
        subscriptions: (any SubscriptionIngest)? = nil
    ) throws {
        let readConnection = try Connection(path: store.path, options: OpenOptions(readOnly: true, create: false))
        let keys = WriteKeys(connection: readConnection, now: now)
        // Commits write the WAL without flushing it; the commit queue's syncer flushes it
        // (`WALSync`) before any request of a group is answered (design note: `CommitQueue`).
        try store.connection.execute("PRAGMA synchronous = NORMAL")
        let walSync = WALSync(databasePath: store.path)
        // Fail now, not at the first request, when another process holds the write lock.
        try store.connection.transaction(.immediate) { _ in }
        guard try keys.validCount() > 0 else { throw CollectorError.noWriteKeys }
        checkpointer = try BackgroundCheckpointer(connection: store.connection, walLimitBytes: limits.maxWALBytes)
        let metrics = CollectorMetrics()
        let health = WriterHealth()
        let log = FoldedLog(write: log)
        let queue = CommitQueue(
            capacity: limits.queueCapacity,
            store: { works in
                do {
                    let parts = works.compactMap { work -> CommitPart? in
                        if case .events(let part) = work { part } else { nil }
                    }
                    let counts = try Self.commit(parts, store: store, health: health)
                    if zip(parts, counts).contains(where: { $0.impressions == .pending && $1.counts.accepted > 0 }) {
                        committed()
                    }
                    let bodies = works.compactMap { work -> Data? in
                        if case .webhook(let body) = work { body } else { nil }
                    }
                    let outcomes = Self.ingest(
                        bodies, into: subscriptions, receivedAtMs: now.milliseconds(), health: health)
                    var eventsLeft = counts[...]
                    var webhooksLeft = outcomes[...]
                    return works.map { work in
                        switch work {
                        case .events: eventsLeft.popFirst().map { .events($0) } ?? .failed(CommitQueue.Mismatch())
                        case .webhook: webhooksLeft.popFirst() ?? .failed(CommitQueue.Mismatch())
                        }
                    }
                } catch {
                    health.failed(CollectorHandler.summary(error), bytes: Self.estimatedBytes(of: works))
                    throw error
                }
            },
            sync: {
                do {
                    try walSync.sync()
                    health.flushed()
                } catch {
                    health.failed("its log could not be flushed: \(CollectorHandler.summary(error))")
                    throw error
                }
            },
            observe: { seconds, succeeded in
                metrics.commit(seconds: seconds, succeeded: succeeded)
            })
        let handler = CollectorHandler(
            keys: keys, limits: limits, queue: queue, metrics: metrics,
            body: NDJSONBody(now: now), health: health, webhooks: subscriptions != nil, log: { log($0) })
        do {
            server = try HTTPServer(socket: socket, limits: limits, handler: handler)
        } catch {
            queue.close()
            checkpointer.stop()
            throw error
        }
        // (the prober starts only once the server runs: nothing to stop above)
        handler.server = server
        prober = HealthProber(health: health, queue: queue)
        self.queue = queue
        self.handler = handler
        self.metrics = metrics
        port = socket.port
    }

    /// Stops accepting, finishes the requests in flight (new requests on open connections get 503
    /// and `Connection: close`), commits everything queued, answers it, and closes every connection.
    ///
    /// - Parameter grace: how long requests still arriving may take before they are cut off.
    public func shutdown(grace: Duration = .seconds(8)) {
        handler.stopping.withLock { $0 = true }
        server.quiesce()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: grace)
        while server.inFlight > 0, clock.now < deadline { usleep(10_000) }
        prober.stop()
        queue.close()
        let answered = clock.now.advanced(by: .seconds(1))
        while server.inFlight > 0, clock.now < answered { usleep(10_000) }
        server.stop()
        checkpointer.stop()
    }

    /// Stores one group's webhook bodies in one call of `subscriptions` (its own transaction, after the
    /// group's events): one outcome per body, or the failure for each when the call threw (then
    /// only the webhook requests are answered 503; the events of the group are committed).
    ///
    /// Design note (a shortcut for speed): the bodies that waited together share one call, so one
    /// transaction and one sync, instead of one per webhook. Measured with `paywall-bench webhook`
    /// (release, 8 clients, a shared 2-core machine): about 2,200 webhooks/s in groups against 660/s
    /// with one call per body; each webhook is still answered only after its group is on disk.
    static func ingest(
        _ bodies: [Data], into subscriptions: (any SubscriptionIngest)?, receivedAtMs: Int64, health: WriterHealth
    ) -> [CommitQueue.Outcome] {
        guard !bodies.isEmpty else { return [] }
        guard let subscriptions else { return bodies.map { _ in .failed(CommitQueue.Mismatch()) } }
        do {
            let outcomes = try subscriptions.ingest(bodies, receivedAtMs: receivedAtMs)
            guard outcomes.count == bodies.count else { return bodies.map { _ in .failed(CommitQueue.Mismatch()) } }
            health.committedWrite()
            return outcomes.map { .webhook($0) }
        } catch {
            health.failed(CollectorHandler.summary(error))
            return bodies.map { _ in .failed(error) }
        }
    }

    /// A generous estimate of the bytes a group's commit writes (rows, their index entries and the
    /// pages around them), for the size of the health probe after the group failed: overestimating
    /// only keeps `/healthz` at 503 until a little more room is free.
    static func estimatedBytes(of works: [CommitQueue.Work]) -> Int {
        works.reduce(0) { total, work in
            switch work {
            case .events(let part):
                total + 4_096 + part.events.count * 512
                    + part.quarantine.reduce(0) { $0 + 256 + $1.payload.utf8.count + ($1.rawPayload?.count ?? 0) }
            case .webhook(let body): total + 4_096 + 2 * body.count
            }
        }
    }

    /// Where RevenueCat posts its webhooks (with a webhook secret, `keys add NAME --webhook`).
    public static let webhookPath = "/v1/revenuecat/webhooks"

    /// The part a health probe puts in the writer's queue (recognised by its origin).
    static let probeOrigin = "collector/health-probe"

    /// Commits one group: the requests' parts in one transaction, then, when the group holds a
    /// health probe, a one-row write (`meta` key `collector.health_probe`, the time in seconds), so
    /// that a full disk or a refused write fails the probe as it fails an upload. While a data
    /// write's failure stands, the probe first commits a row as large as that write
    /// (``WriterHealth/probeBytes()``) and then shrinks it again, so that a store with room for one
    /// row but not for an upload stays unhealthy. A failed probe is recorded in `health` and never
    /// fails the requests committed with it.
    static func commit(_ parts: [CommitPart], store: EventStore, health: WriterHealth) throws
        -> [GroupCommitOutcome]
    {
        let real = parts.filter { $0.origin != probeOrigin }
        var probeWrote = false
        if real.count < parts.count {
            do {
                let bytes = health.probeBytes()
                if bytes > 0 {
                    _ = try store.connection.run(
                        """
                        INSERT INTO meta (key, value) VALUES ('collector.health_probe', hex(zeroblob((?1 + 1) / 2)))
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value
                        """, [.integer(Int64(bytes))])
                }
                try store.connection.execute(
                    """
                    INSERT INTO meta (key, value) VALUES ('collector.health_probe', strftime('%s', 'now'))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
                probeWrote = true
                health.probed(succeeded: true)
            } catch {
                health.failed(CollectorHandler.summary(error))
                health.probed(succeeded: false)
            }
        }
        var counts = real.isEmpty ? [] : try store.commitGroupOutcomes(real)
        if probeWrote || real.contains(where: { !$0.events.isEmpty || !$0.quarantine.isEmpty }) {
            health.committedWrite()
        }
        counts.reverse()
        return parts.map {
            $0.origin == probeOrigin ? GroupCommitOutcome(counts: EventCounts(accepted: 0)) : counts.removeLast()
        }
    }
}

/// A thread that asks ``WriterHealth`` every 200 ms whether a probe is due and queues one when it
/// is (one at a time; a full queue just means the next tick tries again).
final class HealthProber: Sendable {
    private let stopped = Lock(false)
    private let done = DispatchSemaphore(value: 0)

    init(health: WriterHealth, queue: CommitQueue) {
        let thread = Thread { [stopped, done] in
            while !stopped.withLock({ $0 }) {
                if health.startProbeIfDue() {
                    let part = CommitPart(
                        events: [], quarantine: [], impressions: .pending, origin: Collector.probeOrigin)
                    let job = CommitQueue.Job(part: part, probe: true, done: { _ in health.probeDone() })
                    if !queue.submit(job) { health.probeDone() }
                }
                usleep(200_000)
            }
            done.signal()
        }
        thread.name = "PaywallCollector.health"
        thread.start()
    }

    /// Stops the thread (once) and waits for it.
    func stop() {
        let first = stopped.withLock { was in
            defer { was = true }
            return !was
        }
        if first { done.wait() }
    }
}
