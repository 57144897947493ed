import Foundation
import PaywallCore
import PaywallGzip
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallWire

/// Routes, checks and answers the collector's requests: `POST /v1/events`, `POST /v1/revenuecat/webhooks`,
/// `GET /healthz`, `GET /metrics`; 400, 401, 404, 405, 413, 415 and 503 as docs/server.md lists them.
// @unchecked Sendable: `server` is set once, right after the server starts and before any request
// can reach `begin` that reads it (metrics); everything else is immutable or atomic.
final class CollectorHandler: HTTPRequestHandler, @unchecked Sendable {
    /// What a `POST /v1/events` carries from its headers to its body.
    struct EventsRequest: Sendable {
        var keyName: String
        var gzip: Bool
        var forwarding: ForwardingParty
    }

    /// A `GET /healthz`, answered from ``WriterHealth`` once its request is in.
    struct HealthCheck: Sendable {}

    /// A `POST /v1/revenuecat/webhooks` whose secret was accepted.
    struct WebhookRequest: Sendable {}

    let keys: WriteKeys
    let limits: CollectorLimits
    let queue: CommitQueue
    let metrics: CollectorMetrics
    let body: NDJSONBody
    let health: WriterHealth
    /// Whether `POST /v1/revenuecat/webhooks` is served (a subscription store was given).
    let webhooks: Bool
    /// `--key-rate`'s buckets, when a rate is set.
    let limiter: KeyRateLimiter?
    /// `--key-quarantine-bytes`' buckets.
    let quarantineBudget: KeyQuarantineBudget
    let log: @Sendable (String) -> Void
    weak var server: HTTPServer?
    /// Set on shutdown: new requests get 503 and `Connection: close`.
    let stopping = Lock(false)

    init(
        keys: WriteKeys, limits: CollectorLimits, queue: CommitQueue, metrics: CollectorMetrics, body: NDJSONBody,
        health: WriterHealth, webhooks: Bool = false, log: @escaping @Sendable (String) -> Void
    ) {
        self.health = health
        self.webhooks = webhooks
        limiter = limits.keyRate > 0 ? KeyRateLimiter(rate: limits.keyRate) : nil
        quarantineBudget = KeyQuarantineBudget(bytesPerDay: limits.keyQuarantineBytes)
        self.keys = keys
        self.limits = limits
        self.queue = queue
        self.metrics = metrics
        self.body = body
        self.log = log
    }

    func answered(route: String, status: Int) { metrics.request(route: route, status: status) }

    func received(bytes: Int) { metrics.received(bytes: bytes) }

    func begin(method: String, path: String, headers: HTTPHeaders) -> HTTPBegin {
        let route = CollectorMetrics.route(path)
        if stopping.withLock({ $0 }) {
            return .respond(
                .error(
                    503, "the collector is shutting down; retry on a new connection",
                    headers: [HTTPHeader(CollectorWire.Header.retryAfter, "1"), HTTPHeader("Connection", "close")]),
                route: route)
        }
        if let problem = headers.framingProblem {
            // The connection is closed after the answer: what follows on it cannot be framed safely.
            return .respond(
                .error(
                    400, "\(problem); send one unambiguous Content-Length or chunked body",
                    headers: [HTTPHeader("Connection", "close")]), route: route)
        }
        switch path {
        case CollectorWire.path:
            guard method == CollectorWire.method else {
                return .respond(Self.methodNotAllowed(CollectorWire.method), route: route)
            }
            return beginEvents(headers: headers, route: route)
        case Collector.webhookPath:
            guard webhooks else {
                return .respond(.error(404, "this collector takes no RevenueCat webhooks"), route: route)
            }
            guard method == "POST" else { return .respond(Self.methodNotAllowed("POST"), route: route) }
            return beginWebhook(headers: headers, route: route)
        case "/healthz":
            guard method == "GET" || method == "HEAD" else {
                return .respond(Self.methodNotAllowed("GET, HEAD"), route: route)
            }
            // Answered once the request is in (answering before keeps libmicrohttpd from reusing the
            // connection), from the writer's last known state: never a job in the writer's queue.
            return .readBody(limit: 0, route: route, context: HealthCheck())
        case "/metrics":
            guard method == "GET" || method == "HEAD" else {
                return .respond(Self.methodNotAllowed("GET, HEAD"), route: route)
            }
            let text = metrics.render(
                queueDepth: queue.depth, openConnections: server?.openConnections ?? 0, probes: health.probes)
            return .respond(
                HTTPResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/plain; version=0.0.4")],
                    body: Data(text.utf8)), route: route)
        default:
            return .respond(
                .error(404, "no such route; events go to \(CollectorWire.method) \(CollectorWire.path)"), route: route)
        }
    }

    static func methodNotAllowed(_ allow: String) -> HTTPResponse {
        .error(405, "this route takes \(allow) only", headers: [HTTPHeader("Allow", allow)])
    }

    private func beginEvents(headers: HTTPHeaders, route: String) -> HTTPBegin {
        let keyName: String
        switch authenticate(headers[CollectorWire.Header.authorization]) {
        case .known(let name): keyName = name
        case .refused(let response): return .respond(response, route: route)
        }
        if let limiter, let wait = limiter.take(keyName) {
            metrics.rateLimited(key: keyName)
            return .respond(
                .error(
                    429,
                    "the write key '\(keyName)' passed its rate of \(Self.rate(limiter.rate)) requests per second; "
                        + "nothing of this request was stored, retry after \(wait) s",
                    headers: [HTTPHeader(CollectorWire.Header.retryAfter, String(wait))]), route: route)
        }
        let mediaType =
            headers[CollectorWire.Header.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard mediaType == CollectorWire.mediaType else {
            return .respond(
                .error(415, "the body must be NDJSON sent as Content-Type: application/x-ndjson"), route: route)
        }
        // An empty Content-Encoding says no encoding, as its absence does.
        let sentEncoding =
            headers[CollectorWire.Header.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let encoding = sentEncoding.isEmpty ? "identity" : sentEncoding
        guard encoding == "identity" || encoding == CollectorWire.gzip else {
            return .respond(.error(415, "Content-Encoding must be gzip or absent"), route: route)
        }
        let forwardingText =
            headers[CollectorWire.Header.forwarding]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard let forwarding = ForwardingParty(rawValue: forwardingText) else {
            return .respond(
                .error(
                    400,
                    "say who forwards this install's impressions to RevenueCat with the header "
                        + "X-Paywall-Forwarding: device (the app does) or collector (this server does)"), route: route)
        }
        if let length = headers[CollectorWire.Header.contentLength].flatMap({ Int($0) }), length > limits.maxBodyBytes {
            return .respond(tooLarge(asSent: true), route: route)
        }
        return .readBody(
            limit: limits.maxBodyBytes, route: route,
            context: EventsRequest(keyName: keyName, gzip: encoding == CollectorWire.gzip, forwarding: forwarding))
    }

    /// A webhook's headers: its secret (the whole `Authorization` value or `Bearer <secret>`) and its
    /// announced size. No rate limit applies: RevenueCat sends at its own pace and retries only late.
    private func beginWebhook(headers: HTTPHeaders, route: String) -> HTTPBegin {
        metrics.webhook(.received)
        let challenge = [HTTPHeader(CollectorWire.Header.wwwAuthenticate, "Bearer realm=\"paywall-analytics\"")]
        guard let header = headers[CollectorWire.Header.authorization], !header.isEmpty else {
            metrics.webhook(.unauthorized)
            return .respond(
                .error(
                    401,
                    "send the webhook secret as the Authorization header value (make one with `keys add NAME --webhook` "
                        + "and paste it into RevenueCat's Authorization header value field)", headers: challenge),
                route: route)
        }
        do {
            guard try keys.webhookName(forAuthorization: header) != nil else {
                metrics.webhook(.unauthorized)
                return .respond(
                    .error(
                        401,
                        "the Authorization value is not a valid webhook secret (a write key does not open this route); "
                            + "make one with `keys add NAME --webhook`", headers: challenge), route: route)
            }
        } catch {
            log("cannot read the webhook secrets: \(Self.summary(error))")
            return .respond(Self.unavailable("the store cannot be read to check the webhook secret"), route: route)
        }
        if let length = headers[CollectorWire.Header.contentLength].flatMap({ Int($0) }), length > limits.maxBodyBytes {
            return .respond(webhookTooLarge(), route: route)
        }
        return .readBody(limit: limits.maxBodyBytes, route: route, context: WebhookRequest())
    }

    private func webhookTooLarge() -> HTTPResponse {
        .error(413, "the webhook body is larger than \(limits.maxBodyBytes) bytes (--max-body); nothing was stored")
    }

    /// A webhook body is in: one job for the writer, answered 200 once it is stored and synced.
    private func finishWebhook(_ request: HTTPBodyRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        if request.tooLarge { return respond(webhookTooLarge()) }
        let metrics = self.metrics
        let log = self.log
        let submitted = queue.submit(
            CommitQueue.Job(webhook: Data(request.body)) { result in
                switch result {
                case .success(let outcome):
                    metrics.webhook(CollectorMetrics.WebhookCount(outcome))
                    respond(.json(200, Self.webhookAnswer(outcome)))
                case .failure(let error):
                    respond(
                        Self.commitFailed(
                            error, what: "a webhook commit",
                            resend: "the event may be stored: resend it (a stored event counts as a duplicate)",
                            log: log))
                }
            })
        if !submitted { respond(queueRefusal) }
    }

    /// `{"outcome":"stored"}`, and for a quarantined body `"reasons":[…]` too.
    static func webhookAnswer(_ outcome: WebhookOutcome) -> String {
        var text = "{\"outcome\":\(JSONString.quoted(outcome.name))"
        if case .quarantined(let reasons) = outcome {
            text += ",\"reasons\":[" + reasons.map { JSONString.quoted($0) }.joined(separator: ",") + "]"
        }
        return text + "}"
    }

    /// `2`, `0.5`: a rate as the operator wrote it.
    static func rate(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// A request's key: the name of a valid one, or the answer that refuses it.
    enum Authentication {
        case known(String)
        case refused(HTTPResponse)
    }

    private func authenticate(_ header: String?) -> Authentication {
        let challenge = [HTTPHeader(CollectorWire.Header.wwwAuthenticate, "Bearer realm=\"paywall-analytics\"")]
        let bearer = CollectorWire.bearerPrefix
        guard let header, header.count > bearer.count, header.prefix(bearer.count).lowercased() == bearer.lowercased()
        else {
            return .refused(
                .error(
                    401, "send a write key as Authorization: Bearer <key> (make one with `keys add NAME`)",
                    headers: challenge))
        }
        let key = header.dropFirst(bearer.count).trimmingCharacters(in: .whitespaces)
        do {
            guard let name = try keys.name(forKey: key) else {
                return .refused(
                    .error(
                        401, "the write key is unknown or revoked; ask the operator for a valid key",
                        headers: challenge))
            }
            return .known(name)
        } catch {
            log("cannot read the write keys: \(error)")
            return .refused(Self.unavailable("the store cannot be read to check the write key"))
        }
    }

    private func tooLarge(asSent: Bool) -> HTTPResponse {
        asSent
            ? .error(413, "the body is larger than \(limits.maxBodyBytes) bytes as sent; send fewer events per request")
            : .error(
                413,
                "the body is larger than \(limits.maxDecompressedBytes) bytes once gunzipped; send fewer events per request"
            )
    }

    /// The answer to a job the commit queue failed (503), logged: a failed sync may have stored the
    /// request (`resend` says so), any other failure means the store cannot take writes now.
    static func commitFailed(
        _ error: any Error, what: String, resend: String, log: @Sendable (String) -> Void
    ) -> HTTPResponse {
        if let failed = error as? CommitQueue.SyncFailed {
            log("a sync failed, its requests were answered 503: \(summary(failed.underlying))")
            return .error(
                503, "the store could not flush its log to disk (\(summary(failed.underlying))); " + resend,
                headers: [HTTPHeader(CollectorWire.Header.retryAfter, "5")])
        }
        log("\(what) failed, its requests were answered 503: \(summary(error))")
        return unavailable("the store cannot take writes now (\(summary(error)))")
    }

    /// The answer when the commit queue refuses a job: full, or closed because serve is stopping.
    var queueRefusal: HTTPResponse {
        queue.isClosed
            ? Self.unavailable("the collector is shutting down; retry on a new connection", retryAfter: 1)
            : Self.unavailable("the commit queue is full", retryAfter: 1)
    }

    static func unavailable(_ reason: String, retryAfter: Int = 5) -> HTTPResponse {
        .error(
            503, "\(reason); nothing of this request was stored, retry later",
            headers: [HTTPHeader(CollectorWire.Header.retryAfter, String(retryAfter))])
    }

    func finish(_ request: HTTPBodyRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        if request.context is HealthCheck {
            if let problem = health.problem() { return respond(Self.unavailable(problem)) }
            return respond(.json(200, "{\"status\":\"ok\"}"))
        }
        if request.context is WebhookRequest { return finishWebhook(request, respond: respond) }
        guard let events = request.context as? EventsRequest else { return respond(.error(500, "internal error")) }
        if request.tooLarge { return respond(tooLarge(asSent: true)) }
        var bytes = request.body
        if events.gzip {
            do {
                bytes = try Gzip.inflate(request.body, limit: limits.maxDecompressedBytes)
            } catch .tooLarge {
                return respond(tooLarge(asSent: false))
            } catch {
                return respond(.error(400, "the body is not valid gzip (damaged or cut short); send it again whole"))
            }
        }
        // Lines are counted before anything is validated: memory per line is never spent on a body
        // that holds more of them than any client sends.
        let lines = Self.lineCount(bytes)
        if lines > limits.maxLines {
            return respond(
                .error(
                    413,
                    "the body holds \(lines) lines, more than the \(limits.maxLines) one request may hold; "
                        + "send fewer events per request"))
        }
        guard UTF8Check.isValid(bytes) else {
            return respond(.error(400, "the body is not UTF-8 text; NDJSON lines must be UTF-8"))
        }
        let origin = "collector/\(events.keyName)"
        var validated = bytes.withUnsafeBytes { body.validate($0, origin: origin) }
        validated.quarantine = Self.budgeted(validated.quarantine, bytes: limits.maxQuarantineBytes)
        let kept = validated.quarantine.reduce(0) { $0 + ($1.rawPayload?.count ?? $1.payload.utf8.count) }
        if let wait = quarantineBudget.take(events.keyName, cost: kept) {
            metrics.quarantineBudgetRefused(key: events.keyName)
            return respond(
                .error(
                    429,
                    "the write key '\(events.keyName)' passed its budget of \(limits.keyQuarantineBytes) bytes of "
                        + "refused lines kept per day (--key-quarantine-bytes), and this request has \(validated.quarantine.count) "
                        + "refused lines; nothing of it was stored: fix the lines the earlier answers listed in "
                        + "`rejected`, or retry after \(wait) s",
                    headers: [HTTPHeader(CollectorWire.Header.retryAfter, String(min(wait, 3_600)))]))
        }
        // `X-Paywall-Forwarding: collector`: this collector's forwarder sends the new impressions;
        // `device`: the app install did, and the collector only records that.
        let part = CommitPart(
            events: validated.events, quarantine: validated.quarantine,
            impressions: events.forwarding == .device ? .forwardedByDevice : .pending, origin: origin,
            eventLines: validated.eventLines)
        let metrics = self.metrics
        let log = self.log
        let limits = self.limits
        let submitted = queue.submit(
            CommitQueue.Job(
                events: part,
                answered: { result in
                    switch result {
                    case .success(let outcome):
                        let counts = outcome.counts
                        metrics.events(
                            key: events.keyName, accepted: counts.accepted, duplicates: counts.duplicates,
                            quarantined: counts.quarantined, suppressed: counts.suppressed)
                        respond(
                            .json(
                                200,
                                Self.answer(
                                    counts, quarantine: Self.inLineOrder(part.quarantine + outcome.conflicts),
                                    listing: limits.maxRejections
                                ).json))
                    case .failure(let error):
                        respond(
                            Self.commitFailed(
                                error, what: "a commit",
                                resend:
                                    "this request's events may be stored: resend it (stored events count as duplicates)",
                                log: log))
                    }
                }))
        if !submitted { respond(queueRefusal) }
    }

    /// A storage error's short description (never bound values).
    static func summary(_ error: any Error) -> String {
        (error as? StorageError)?.summary ?? "\(type(of: error))"
    }

    /// The answer to a stored request: its counts, and the first `listing` quarantined lines with
    /// their reasons (line 0 when it has no number); the others are counted in `rejected_omitted`.
    static func answer(_ counts: EventCounts, quarantine: [QuarantineEntry], listing: Int = .max) -> CollectorAnswer {
        CollectorAnswer(
            counts: counts,
            rejected: quarantine.prefix(listing).map {
                CollectorAnswer.Rejection(line: $0.line ?? 0, reasons: $0.reasons)
            },
            rejectedOmitted: max(0, quarantine.count - listing))
    }

    /// Refused lines in body order (conflicts, found at commit, among the lines refused before it).
    static func inLineOrder(_ entries: [QuarantineEntry]) -> [QuarantineEntry] {
        entries.enumerated().sorted { ($0.element.line ?? .max, $0.offset) < ($1.element.line ?? .max, $1.offset) }
            .map(\.element)
    }

    /// The number of lines in `bytes`: its LF bytes, plus one when the last line has none.
    static func lineCount(_ bytes: [UInt8]) -> Int {
        var count = 0
        bytes.withUnsafeBytes { raw in
            var rest = raw[...]
            while let index = rest.firstIndex(of: 0x0A) {
                count += 1
                rest = rest[(index + 1)...]
            }
            if !rest.isEmpty { count += 1 }
        }
        return count
    }

    /// The quarantined lines of one request within a budget of `bytes` kept whole: once the
    /// payloads kept reach it, each further line keeps only its first 512 bytes (its identity stays
    /// the SHA-256 of the whole line, as for a line over the line limit), with a reason saying so.
    static func budgeted(_ entries: [QuarantineEntry], bytes budget: Int) -> [QuarantineEntry] {
        let prefix = 512
        var used = 0
        return entries.map { entry in
            let kept = entry.rawPayload ?? Array(entry.payload.utf8)
            guard used + kept.count > budget, kept.count > prefix else {
                used += kept.count
                return entry
            }
            used += prefix
            return QuarantineEntry(
                quarantinedAt: entry.quarantinedAt,
                reasons: entry.reasons + [
                    "only its first \(prefix) bytes are kept (and the SHA-256 of all \(kept.count)): the request's "
                        + "refused lines passed the collector's \(budget)-byte budget (--max-quarantine-bytes)"
                ],
                kept: Array(kept.prefix(prefix)), identity: entry.identity, whole: false, origin: entry.origin,
                line: entry.line)
        }
    }
}
