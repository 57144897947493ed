import Foundation
import PaywallCore
import PaywallDelivery
import PaywallGzip
import PaywallWire

/// The collector as a ``DeliveryDestination``: events in `seq` order after the upload cursor, as
/// gzip NDJSON of at most 1,000 events and 512 KiB, posted as `CollectorWire` spells the route; a 2xx
/// counts only when its answer's `accepted + duplicates + quarantined + suppressed` (read by
/// `CollectorAnswer.counts(in:)`) equals the lines sent, and then advances the cursor (in the same
/// transaction, handing impressions over when the collector forwards them).
///
/// | answer | verdict |
/// |---|---|
/// | 2xx with counts adding up to the lines sent | delivered: the cursor moves past the batch |
/// | 2xx with other counts, or no counts | retry with backoff (nothing marked uploaded) |
/// | 413 | shrink: the batch is sent again as half as many events |
/// | 401, 403 | retry at the policy's cap; every event kept; diagnostics say the key was refused |
/// | other 4xx | retry at the policy's cap; every event kept |
/// | 429, 5xx, 3xx, network failure | retry after `Retry-After` (capped) or backoff |
struct CollectorDestination: DeliveryDestination {
    /// One request's events and body.
    struct Batch: Sendable {
        var count: Int
        var lastSeq: Int64
        var body: Data
        /// The ``CollectorWire/Header/forwarding`` of this request.
        var forwarding: ForwardingParty
    }

    let queue: any EventUploadQueue
    let configuration: UploaderConfiguration

    var pauseKey: String { DeliveryDestinationName.collector }
    var displayName: String { "the collector" }

    /// Two requests on the wire: the next batch is read, encoded and sent while the collector
    /// commits the one before (answers are still recorded in order; see ``DeliveryEngine``).
    var maxInFlight: Int { 2 }

    func nextBatch(limit: Int, now: Int64) throws -> Batch? {
        try batch(after: try queue.uploadCursor(), limit: limit)
    }

    func nextBatch(after previous: Batch, limit: Int, now: Int64) throws -> Batch? {
        try batch(after: previous.lastSeq, limit: limit)
    }

    /// Up to `limit` events after `cursor` (a `seq`), encoded as one request's body.
    func batch(after cursor: Int64, limit: Int) throws -> Batch? {
        let items = try queue.events(after: cursor, limit: min(limit, configuration.batchSize))
        guard !items.isEmpty else { return nil }
        var body = [UInt8]()
        body.reserveCapacity(min(configuration.batchBytes, items.count * 400))
        var count = 0
        var lastSeq = cursor
        // One side per request. With `collector`, impressions this store's own forwarder delivered
        // already (an earlier configuration forwarded from here) go in requests of their own, marked
        // `device`, so the collector never sends them again; other events join either side.
        var forwarding: ForwardingParty?
        for item in items {
            let side: ForwardingParty? =
                configuration.forwarding == .device
                ? .device
                : item.event.name != .paywallShown ? nil : item.forwardedHere ? .device : .collector
            if let side, let chosen = forwarding, side != chosen { break }
            let start = body.count
            item.event.appendNDJSON(to: &body)
            if count > 0, body.count + 1 > configuration.batchBytes {
                body.removeSubrange(start...)
                break
            }
            if let side { forwarding = side }
            body.append(0x0A)
            count += 1
            lastSeq = item.seq
        }
        let sent = configuration.gzip ? Gzip.deflate(body, level: 1) : body
        return Batch(
            count: count, lastSeq: lastSeq, body: Data(sent), forwarding: forwarding ?? configuration.forwarding)
    }

    func count(of batch: Batch) -> Int { batch.count }

    func attempt(of batch: Batch, failures: Int) -> Int { failures + 1 }

    func request(for batch: Batch, attempt: Int) throws -> HTTPRequest {
        var headers = [
            HTTPHeader(CollectorWire.Header.authorization, CollectorWire.bearerPrefix + configuration.writeKey.value),
            HTTPHeader(CollectorWire.Header.contentType, CollectorWire.mediaType),
            HTTPHeader(CollectorWire.Header.forwarding, batch.forwarding.rawValue),
            HTTPHeader(CollectorWire.Header.version, ProductVersion.current),
            HTTPHeader(CollectorWire.Header.retryCount, String(attempt - 1)),
        ]
        if configuration.gzip { headers.append(HTTPHeader(CollectorWire.Header.contentEncoding, CollectorWire.gzip)) }
        return HTTPRequest(
            method: CollectorWire.method, url: configuration.eventsURL, headers: headers, body: batch.body)
    }

    func verdict(for response: HTTPResponse, of batch: Batch, attempt: Int, now: Int64) -> DeliveryVerdict {
        let policy = configuration.retryPolicy
        let status = response.status
        let lines = "\(batch.count) event\(batch.count == 1 ? "" : "s")"
        switch status {
        case 200..<300:
            guard let counts = CollectorAnswer.counts(in: response.body), counts.total == batch.count else {
                let got =
                    CollectorAnswer.counts(in: response.body).map {
                        "accepted \($0.accepted), duplicates \($0.duplicates), quarantined \($0.quarantined)"
                    } ?? "no readable counts"
                let wait = policy.backoff(attempt: attempt)
                return .retry(
                    after: wait,
                    reason: "the collector answered HTTP \(status) for \(lines) with \(got), which "
                        + "does not account for every line sent; nothing is marked uploaded and the batch is sent again "
                        + "in \(Self.seconds(wait)) (check that the endpoint is a paywall-analytics collector)")
            }
            return .delivered(counts)
        case 413 where batch.count > 1:
            return .shrink(
                reason: "the collector answered HTTP 413 (body too large) for \(lines); sending half as many")
        case 401, 403:
            return .retry(
                after: policy.cap,
                reason: "the collector refused the write key (HTTP \(status)): this batch was not uploaded, and "
                    + "every event is kept that the collector has not acknowledged. Check the write key (\(CollectorKey.environmentVariable), or the "
                    + "configuration's collector write key) against the collector's list of keys; uploading retries in "
                    + "\(Self.seconds(policy.cap))")
        case 300..<400:
            let wait = policy.backoff(attempt: attempt)
            return .retry(
                after: wait,
                reason: "the collector's endpoint answered HTTP \(status), a redirect, which is never "
                    + "followed (the write key goes only to the configured endpoint); check the endpoint. Every event is "
                    + "kept; retrying in \(Self.seconds(wait))")
        default:
            let retryAfter = RetryPolicy.retryAfter(header: response.header(CollectorWire.Header.retryAfter), now: now)
            let excerpt = Self.excerpt(response.body, key: configuration.writeKey.value)
            switch policy.decide(status: status, retryAfter: retryAfter, attempt: attempt) {
            case .retry(let wait):
                return .retry(
                    after: wait,
                    reason: "the collector answered HTTP \(status)\(excerpt); every event is kept and "
                        + "uploading pauses for \(Self.seconds(wait))")
            case .delivered, .deadLetter:
                return .retry(
                    after: policy.cap,
                    reason: "the collector refused the request with HTTP \(status)\(excerpt); "
                        + "every event is kept and uploading retries in \(Self.seconds(policy.cap)). Check the endpoint "
                        + "and that this program and the collector are the same version")
            }
        }
    }

    func verdict(for error: TransportError, of batch: Batch, attempt: Int) -> DeliveryVerdict {
        let wait = configuration.retryPolicy.backoff(attempt: attempt)
        var what = error.explained(destination: "the collector", url: configuration.eventsURL)
        if case .cannotConnect = error { what += "; check the endpoint and network" }
        return .retry(
            after: wait, reason: "\(what); every event is kept and uploading pauses for \(Self.seconds(wait))")
    }

    func record(_ verdict: DeliveryVerdict, of batch: Batch, attempt: Int, at: Int64) throws {
        guard case .delivered = verdict else { return }
        try queue.acknowledge(through: batch.lastSeq, handOffImpressions: batch.forwarding == .collector, at: at)
    }

    /// ` ("…")`: the start of the answer (at most 200 bytes, the key redacted, control characters
    /// escaped so they never reach a terminal or the stored pause reason raw), or nothing when empty.
    static func excerpt(_ body: Data, key: String) -> String {
        let text = TerminalText.escaped(
            String(decoding: KeyRedaction.redact(body.prefix(200), key: key), as: UTF8.self))
        return text.isEmpty ? "" : " (\"\(text)\")"
    }

    /// `3 s`, `1.5 s`, `10 min`.
    static func seconds(_ duration: Duration) -> String {
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if millis >= 120_000, millis % 60_000 == 0 { return "\(millis / 60_000) min" }
        if millis % 1000 == 0 { return "\(millis / 1000) s" }
        return String(format: "%.1f s", Double(millis) / 1000)
    }
}
