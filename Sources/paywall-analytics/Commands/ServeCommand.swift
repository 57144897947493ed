import Foundation
import PaywallCollector
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import RevenueCatForwarder

/// `serve --listen HOST:PORT`: the collector (the PaywallCollector module does the work;
/// this parses the flags, wires the store, the collector and, with REVENUECAT_API_KEY, the forwarder).
enum ServeCommand {
    static var spec: CommandSpec {
        let defaults = CollectorLimits()
        return CommandSpec(
            name: "serve",
            abstract: "Collect events from many app installs over HTTP into this database (POST /v1/events).",
            discussion: """
                Bodies are NDJSON as `import` reads them (Content-Type: application/x-ndjson, optionally gzip), sent with
                Authorization: Bearer <write key> (see `keys add`) and X-Paywall-Forwarding: device|collector. A request is
                answered 200 only once its events are committed and synced. GET /healthz and GET /metrics (Prometheus)
                need no key. RevenueCat's webhooks go to POST /v1/revenuecat/webhooks with a webhook secret
                (`keys add NAME --webhook`, pasted into RevenueCat's Authorization header value), answered 200 once
                stored, a duplicate, or quarantined with its reasons. Put a TLS-terminating proxy such as nginx in front
                (see docs/server.md).
                With REVENUECAT_API_KEY set, impressions sent with X-Paywall-Forwarding: collector are forwarded to
                RevenueCat from here. SIGTERM or SIGINT: stop accepting, finish the requests in flight, commit, exit 0.

                Exit codes: 0 stopped by SIGTERM/SIGINT, 64 bad flags or no write key or webhook secret, 74 the address cannot be
                used, 75 the port is taken or the database is locked by another process.
                """,
            usage: "serve --listen <host:port> [--max-connections <n>] [--max-body <size>] [--max-decompressed <size>] "
                + "[--timeout <seconds>] [--header-timeout <seconds>] [--queue <n>] [--max-lines <n>] [--max-rejections <n>] "
                + "[--max-quarantine-bytes <size>] [--key-quarantine-bytes <size>] [--max-wal <size>] [--key-rate <r>] "
                + "[--revenuecat-endpoint <url>]",
            options: [
                .value(
                    "--listen", "host:port",
                    "Address to listen on, e.g. 127.0.0.1:8080 (port 0: any free port, printed on stderr)."),
                .value("--max-connections", "n", "Connections open at once (default \(defaults.maxConnections))."),
                .value(
                    "--max-body", "size",
                    "Largest body as sent, events or webhook, e.g. 1MiB or 512KiB (default 1MiB); over it: 413."),
                .value("--max-decompressed", "size", "Largest body once gunzipped (default 16MiB); over it: 413."),
                .value(
                    "--timeout", "seconds",
                    "Close a connection idle this long, or whose request takes longer to arrive (default \(defaults.timeoutSeconds))."
                ),
                .value(
                    "--queue", "n",
                    "Requests waiting for the commit writer (default \(defaults.queueCapacity)); when full: 503."),
                .value(
                    "--key-rate", "r",
                    "Requests per second each write key may make, bursts of twice as many (default: no limit); "
                        + "past it: 429 with Retry-After."),
                .value(
                    "--header-timeout", "seconds",
                    "Close a new connection whose request headers take longer to arrive (default "
                        + "\(defaults.headerTimeoutSeconds), at most --timeout)."),
                .value(
                    "--max-lines", "n",
                    "Lines in one body once gunzipped (default \(defaults.maxLines)); over it: 413, nothing validated."),
                .value(
                    "--max-rejections", "n",
                    "Refused lines listed in one answer (default \(defaults.maxRejections)); the rest are counted."),
                .value(
                    "--max-quarantine-bytes", "size",
                    "Bytes of refused lines one request keeps whole (default 256KiB); past it a line keeps its "
                        + "first 512 bytes and its SHA-256."),
                .value(
                    "--key-quarantine-bytes", "size",
                    "Bytes of refused lines each write key may have kept per day (default 64MiB); past it: 429 with "
                        + "Retry-After, nothing of the request stored."),
                .value(
                    "--max-wal", "size",
                    "Size the database's WAL file is kept within while no report reads it (default 64MiB, at least "
                        + "1MiB); it returns there once a long report ends."),
                .value(
                    "--revenuecat-endpoint", "url",
                    "RevenueCat's base URL for the forwarder (default \(ForwarderConfiguration.defaultEndpoint.absoluteString))."
                ),
            ],
            examples: [
                "\(Tool.name) serve --listen 127.0.0.1:8080 --db /var/lib/paywalls/events.sqlite",
                "REVENUECAT_API_KEY=appl_… \(Tool.name) serve --listen 127.0.0.1:8080",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("serve takes no arguments") }
        guard let listen = arguments.value("--listen") else {
            throw CLIError.usage("serve needs --listen HOST:PORT, e.g. --listen 127.0.0.1:8080")
        }
        let limits = try parseLimits(arguments)
        let endpoint = try ForwardCommand.parseEndpoint(arguments.value("--revenuecat-endpoint"))
        var forwardingKey: APIKey?
        if let value = context.environment[APIKey.environmentVariable], !value.isEmpty {
            do {
                let resolved = try APIKey.resolve(configured: nil, environment: context.environment)
                if let warning = resolved.warning { context.stderr.line("Warning: \(warning)") }
                forwardingKey = resolved.key
            } catch {
                throw CLIError(.usage, "\(error)")
            }
        }
        let address: (host: String, port: Int)
        do { address = try ListenSocket.parse(listen) } catch { throw CLIError.usage(error.description) }
        let path = context.databasePath(arguments)
        // One collector per store, taken before anything is opened; held until the process ends.
        let lock: CollectorLock
        do {
            lock = try CollectorLock(
                databasePath: path,
                holder: "pid \(getpid()), --listen \(listen), started \(ISO8601DateFormatter().string(from: Date()))")
        } catch {
            throw CLIError(error)
        }
        defer { withExtendedLifetime(lock) {} }
        let store = try StoreAccess.open(
            path, create: true, readOnly: .refuse("serve stores the events it receives in it"))
        let socket: ListenSocket
        do {
            socket = try ListenSocket.bind(host: address.host, port: address.port)
        } catch {
            throw CLIError(error)
        }
        raiseOpenFileLimit()
        signal(SIGPIPE, SIG_IGN)
        let trigger = ForwardTrigger()
        let stderr = context.stderr
        let collector: Collector
        do {
            collector = try Collector(
                store: store, socket: socket, limits: limits, now: .system,
                log: { stderr.line("serve: \($0)") }, committed: { trigger.fire() },
                subscriptions: SubscriptionWebhookStore(store: SubscriptionEventStore(connection: store.connection)))
        } catch let error as CollectorError {
            close(socket.descriptor)
            throw CLIError(error)
        } catch {
            close(socket.descriptor)
            throw StoreAccess.map(error)
        }
        var forwarding: Task<Void, Never>?
        if let forwardingKey {
            let forwarder = Forwarder(
                outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
                configuration: ForwarderConfiguration(apiKey: forwardingKey, endpoint: endpoint, maxBatches: 20),
                now: .system)
            let loop = ForwardingLoop(forwarder: forwarder, interval: .seconds(30), clock: ContinuousClock()) {
                result in
                if case .failure(let error) = result {
                    stderr.line("serve: a forwarding pass failed: \(StoreAccess.map(error).message)")
                }
            }
            trigger.set { loop.trigger() }
            forwarding = Task.detached { await loop.run() }
        }
        let forwardingNote =
            forwardingKey == nil
            ? "impressions stay in the outbox (REVENUECAT_API_KEY not set)"
            : "forwarding impressions to RevenueCat"
        stderr.line(
            "\(Tool.name) serve: listening on http://\(socket.address) (database \(path); \(forwardingNote)). "
                + "Stop with SIGTERM or Ctrl-C.")
        let received = await waitForTermination()
        stderr.line("serve: \(received) received; finishing the requests in flight, then exiting")
        collector.shutdown(grace: .seconds(7))
        if let forwarding {
            forwarding.cancel()
            _ = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await forwarding.value
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(1))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }
        stderr.line("serve: stopped")
        return .success
    }

    /// Waits for SIGTERM or SIGINT; returns its name.
    static func waitForTermination() async -> String {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        return await withCheckedContinuation { continuation in
            let once = OnceBox(continuation)
            for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { once.resume(name) }
                source.resume()
                once.keep(source)
            }
        }
    }

    static func parseLimits(_ arguments: ParsedArguments) throws(CLIError) -> CollectorLimits {
        var limits = CollectorLimits()
        if let text = arguments.value("--max-connections") {
            limits.maxConnections = try whole(text, "--max-connections", min: 1, max: Int(UInt32.max))
        }
        if let text = arguments.value("--max-body") { limits.maxBodyBytes = try size(text, "--max-body") }
        if let text = arguments.value("--max-decompressed") {
            limits.maxDecompressedBytes = try size(text, "--max-decompressed")
        }
        if let text = arguments.value("--timeout") {
            limits.timeoutSeconds = try whole(text, "--timeout", min: 1, max: 86_400)
        }
        if let text = arguments.value("--key-rate") {
            guard let rate = Double(text), rate.isFinite, rate > 0, rate <= 1_000_000 else {
                throw .usage(
                    "--key-rate must be a number of requests per second above 0 (e.g. 5 or 0.5), got '\(text)'")
            }
            limits.keyRate = rate
        }
        if let text = arguments.value("--header-timeout") {
            limits.headerTimeoutSeconds = try whole(text, "--header-timeout", min: 1, max: 86_400)
        }
        if let text = arguments.value("--queue") {
            limits.queueCapacity = try whole(text, "--queue", min: 1, max: 1_000_000)
        }
        if let text = arguments.value("--max-lines") {
            limits.maxLines = try whole(text, "--max-lines", min: 1, max: 100_000_000)
        }
        if let text = arguments.value("--max-rejections") {
            limits.maxRejections = try whole(text, "--max-rejections", min: 0, max: 1_000_000)
        }
        if let text = arguments.value("--max-quarantine-bytes") {
            limits.maxQuarantineBytes = try size(text, "--max-quarantine-bytes")
        }
        if let text = arguments.value("--key-quarantine-bytes") {
            limits.keyQuarantineBytes = try size(text, "--key-quarantine-bytes")
        }
        if let text = arguments.value("--max-wal") {
            let bytes = try size(text, "--max-wal")
            guard bytes >= 1 << 20 else {
                throw .usage(
                    "--max-wal must be at least 1MiB (the WAL needs room for a few group commits), got '\(text)'")
            }
            limits.maxWALBytes = bytes
        }
        return limits
    }

    /// A whole number in `min...max` (the upper bounds keep every limit within what libmicrohttpd
    /// and the system take, so a huge value is a usage error, not a crash).
    static func whole(_ text: String, _ flag: String, min: Int, max: Int = Int.max) throws(CLIError) -> Int {
        guard let value = Int(text), value >= min, value <= max else {
            let range = max == Int.max ? "of at least \(min)" : "from \(min) to \(max)"
            throw .usage("\(flag) must be a whole number \(range), got '\(text)'")
        }
        return value
    }

    /// Bytes, with an optional unit: `1048576`, `512KiB`, `1MiB`, `16M`, `64k` (K/M/G are powers of 1024).
    static func size(_ text: String, _ flag: String) throws(CLIError) -> Int {
        let units: [(String, Int)] = [
            ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("kb", 1 << 10), ("mb", 1 << 20),
            ("gb", 1 << 30), ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("b", 1),
        ]
        let lower = text.lowercased()
        var digits = lower
        var factor = 1
        if let unit = units.first(where: { lower.hasSuffix($0.0) }) {
            digits = String(lower.dropLast(unit.0.count))
            factor = unit.1
        }
        guard let value = Int(digits.trimmingCharacters(in: .whitespaces)), value >= 1, value <= (1 << 40) / factor
        else {
            throw .usage("\(flag) must be a size like 1048576, 512KiB or 16MiB, got '\(text)'")
        }
        return value * factor
    }

    /// Raises the soft open-file limit to the hard one: every connection is a descriptor.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// Resumes a continuation once, whichever signal comes first, and keeps the signal sources alive.
// @unchecked Sendable: `lock` guards `continuation` and `sources`.
private final class OnceBox: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

    func keep(_ source: any DispatchSourceSignal) {
        lock.lock()
        sources.append(source)
        lock.unlock()
    }

    func resume(_ name: String) {
        lock.lock()
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(returning: name)
    }
}

/// Lets the collector's writer thread trigger the forwarding loop once it exists.
// @unchecked Sendable: `lock` guards `action`.
private final class ForwardTrigger: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?

    func set(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        self.action = action
        lock.unlock()
    }

    func fire() {
        lock.lock()
        let action = self.action
        lock.unlock()
        action?()
    }
}
