import Foundation
import PaywallCore
import PaywallWire

/// The delivery mechanism, written once for every destination: one lease-guarded pass at a time per
/// database, a destination-wide pause stored beside the data (so a new process respects it), batches
/// sent through an ``HTTPTransport``, answers turned into verdicts by the destination's adapter
/// (``DeliveryDestination``) and one ``DeliveryReport`` per pass.
///
/// A `Retry-After`, a 5xx, a 429 or a network failure pauses the destination as a whole: no batch
/// (this one or any other) is sent before the pause ends, and the next pass — in this process or
/// another — sends nothing until then. A delivered batch clears the pause.
///
/// ```swift
/// let engine = DeliveryEngine(lease: outbox, pauses: outbox, transport: URLSessionTransport(), now: .system,
///                             leaseDuration: .seconds(120), leaseOwner: "forward")
/// let pass = try await engine.run(destination, maxBatches: 10, batchLimit: 50)
/// ```
public struct DeliveryEngine: Sendable {
    let lease: any DeliveryLeasing
    let pauses: any DeliveryPauses
    let transport: any HTTPTransport
    let now: Now
    let leaseDuration: Duration
    let leaseOwner: String

    /// Creates an engine.
    /// - Parameters:
    ///   - lease: the destination's lease (one pass at a time per database, across processes).
    ///   - pauses: where the destination-wide pause is kept.
    ///   - transport: how requests are sent.
    ///   - now: the wall clock for leases and pauses.
    ///   - leaseDuration: how long a lease lasts; renewed before every request.
    ///   - leaseOwner: names the holder (each pass appends a fresh UUID); never a key.
    public init(
        lease: any DeliveryLeasing, pauses: any DeliveryPauses, transport: any HTTPTransport, now: Now,
        leaseDuration: Duration, leaseOwner: String
    ) {
        self.lease = lease
        self.pauses = pauses
        self.transport = transport
        self.now = now
        self.leaseDuration = leaseDuration
        self.leaseOwner = leaseOwner
    }

    /// Runs one pass to `destination`: takes the lease, respects a pause, sends up to `maxBatches`
    /// batches of at most `batchLimit` items, records every verdict, gives the lease back.
    /// - Returns: ``DeliveryPass/busy`` when another pass holds the lease, else the report.
    /// - Throws: the storage's errors (the lease is released first when possible).
    public func run<Destination: DeliveryDestination>(
        _ destination: Destination, maxBatches: Int,
        batchLimit: Int
    ) async throws -> DeliveryPass {
        // A fresh owner per pass, so two passes of the same process exclude each other too.
        let owner = "\(leaseOwner) \(UUID().uuidString)"
        guard try lease.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) else { return .busy }
        var report = DeliveryReport()
        do {
            try await drain(
                destination, owner: owner, maxBatches: max(1, maxBatches), batchLimit: max(1, batchLimit),
                into: &report)
        } catch {
            try? lease.releaseLease(owner: owner)
            throw error
        }
        try lease.releaseLease(owner: owner)
        return .completed(report)
    }

    private var leaseMs: Int64 { Self.milliseconds(leaseDuration) }

    /// One batch on the wire: what the engine needs to record its answer, in order.
    private struct InFlight<Batch: Sendable> {
        let batch: Batch
        let size: Int
        let attempt: Int
        let index: Int
    }

    /// What sending one batch did, applied to the pass's report when its answer is taken (in order).
    private struct SendLog: Sendable {
        var requested = false
        var bytes = 0
        var status: Int?
        var failure: String?
    }

    /// Sends batches until one fails, nothing is due or the pass's limit is reached.
    ///
    /// Design note: with ``DeliveryDestination/maxInFlight`` above 1 (the collector), the next
    /// batches are read and sent while earlier ones wait for their answers, so the destination's
    /// commit and this side's bookkeeping overlap. Answers are still taken strictly in the order the
    /// batches were sent, and a later answer counts only when every batch before it was delivered:
    /// after a retry, a refusal or a 413 the later answers are set aside (their batches are read and
    /// sent again, which the collector's dedupe by event id makes harmless). Every pass starts with
    /// one batch on the wire and opens to more only after a delivery, and a failure closes it to one
    /// again, so a failing destination sees the same requests as without the pipeline.
    private func drain<Destination: DeliveryDestination>(
        _ destination: Destination, owner: String, maxBatches: Int,
        batchLimit: Int, into report: inout DeliveryReport
    ) async throws {
        var pause = try pauses.pause(of: destination.pauseKey)
        if let pause, pause.until > now.milliseconds() {
            report.stop = .paused
            report.pausedUntil = pause.until
            report.lastFailure = pause.reason
            return
        }
        let width = max(1, destination.maxInFlight)
        var open = false  // more than one batch on the wire, once one was delivered in this pass
        var limit = batchLimit
        var sent = 0
        try await withThrowingTaskGroup(of: (Int, DeliveryVerdict, SendLog).self) { group in
            var waiting: [InFlight<Destination.Batch>] = []  // sent, answers not yet taken, in order
            var answers: [Int: (DeliveryVerdict, SendLog)] = [:]
            var stop: DeliveryReport.Stop?  // set once no further batch is to be sent
            /// Waits for the answer to the batch sent as `index`.
            func answer(_ index: Int) async throws -> (DeliveryVerdict, SendLog) {
                while answers[index] == nil, let (done, verdict, log) = try await group.next() {
                    answers[done] = (verdict, log)
                }
                guard let answer = answers.removeValue(forKey: index) else {
                    preconditionFailure("the answer to batch \(index) of a delivery pass never came")
                }
                return answer
            }
            /// Takes the answers of every batch after a failed one without counting them.
            func setAside(retrying: Bool) async throws {
                for later in waiting {
                    let (_, log) = try await answer(later.index)
                    if log.requested { report.requests += 1 }
                    report.bytesSent += log.bytes
                    if retrying { report.willRetry += later.size }
                }
                waiting.removeAll()
            }
            while true {
                while stop == nil, waiting.count < (open ? width : 1) {
                    if sent >= maxBatches {
                        stop = .batchLimit
                        break
                    }
                    if Task.isCancelled {
                        stop = .cancelled
                        break
                    }
                    if sent > 0, try !lease.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) {
                        stop = .leaseLost
                        break
                    }
                    let next =
                        try waiting.last.map {
                            try destination.nextBatch(after: $0.batch, limit: limit, now: now.milliseconds())
                        }
                        ?? destination.nextBatch(limit: limit, now: now.milliseconds())
                    guard let batch = next else {
                        if waiting.isEmpty { stop = .nothingDue }
                        break
                    }
                    sent += 1
                    let index = sent
                    let attempt = destination.attempt(of: batch, failures: pause?.failures ?? 0)
                    group.addTask {
                        let (verdict, log) = await self.send(batch, to: destination, attempt: attempt)
                        return (index, verdict, log)
                    }
                    waiting.append(
                        InFlight(batch: batch, size: destination.count(of: batch), attempt: attempt, index: index))
                }
                guard !waiting.isEmpty else {
                    report.stop = stop ?? .nothingDue
                    return
                }
                let head = waiting.removeFirst()
                let (verdict, log) = try await answer(head.index)
                if log.requested { report.requests += 1 }
                report.bytesSent += log.bytes
                report.lastStatus = log.status
                if let failure = log.failure { report.lastFailure = failure }
                let at = now.milliseconds()
                try destination.record(verdict, of: head.batch, attempt: head.attempt, at: at)
                switch verdict {
                case .delivered(let counts):
                    report.accepted += counts.accepted
                    report.duplicates += counts.duplicates
                    report.quarantined += counts.quarantined
                    report.suppressed += counts.suppressed
                    open = true
                    if pause != nil {
                        try pauses.clearPause(of: destination.pauseKey)
                        pause = nil
                    }
                case .retry(let after, let reason):
                    let until = at + Self.milliseconds(after)
                    try pauses.setPause(
                        DeliveryPause(until: until, failures: (pause?.failures ?? 0) + 1, reason: reason),
                        of: destination.pauseKey)
                    report.willRetry += head.size
                    try await setAside(retrying: true)
                    report.stop = .unavailable
                    report.pausedUntil = until
                    report.lastFailure = reason
                    return
                case .refused(let status, _):
                    report.refused += head.size
                    report.refusedByStatus[status, default: 0] += head.size
                    try await setAside(retrying: false)
                    open = false
                case .shrink:
                    report.shrinks += 1
                    limit = max(1, head.size / 2)
                    try await setAside(retrying: false)
                    open = false
                }
            }
        }
    }

    /// Sends one batch and asks the adapter what the answer means.
    private func send<Destination: DeliveryDestination>(
        _ batch: Destination.Batch, to destination: Destination, attempt: Int
    ) async -> (DeliveryVerdict, SendLog) {
        var log = SendLog()
        let request: HTTPRequest
        do {
            request = try destination.request(for: batch, attempt: attempt)
        } catch {
            return (
                destination.verdict(
                    for: .other(detail: "the request could not be built: \(type(of: error))"),
                    of: batch, attempt: attempt),
                log
            )
        }
        log.requested = true
        log.bytes = request.body.count
        do {
            let response = try await transport.send(request)
            log.status = response.status
            let verdict = destination.verdict(for: response, of: batch, attempt: attempt, now: now.milliseconds())
            switch verdict {
            case .retry(_, let reason), .shrink(let reason): log.failure = reason
            case .refused(let status, _): log.failure = "\(destination.displayName) answered HTTP \(status)"
            case .delivered: break
            }
            return (verdict, log)
        } catch {
            let transportError = error as? TransportError ?? .other(detail: String(describing: type(of: error)))
            // No connection (or no TLS session) was made: no byte of the body left.
            if case .cannotConnect = transportError { log.bytes = 0 }
            return (destination.verdict(for: transportError, of: batch, attempt: attempt), log)
        }
    }

    /// `duration` in whole milliseconds, saturating instead of overflowing.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        let (product, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return components.seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return product + components.attoseconds / 1_000_000_000_000_000
    }
}
