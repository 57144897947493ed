import Foundation
import PaywallCore

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
        var limit = batchLimit
        var sent = 0
        while sent < maxBatches {
            if Task.isCancelled {
                report.stop = .cancelled
                return
            }
            if sent > 0, try !lease.acquireLease(owner: owner, now: now.milliseconds(), durationMs: leaseMs) {
                report.stop = .leaseLost
                return
            }
            guard let batch = try destination.nextBatch(limit: limit, now: now.milliseconds()) else {
                report.stop = .nothingDue
                return
            }
            sent += 1
            let size = destination.count(of: batch)
            let attempt = destination.attempt(of: batch, failures: pause?.failures ?? 0)
            let verdict = await send(batch, to: destination, attempt: attempt, report: &report)
            let at = now.milliseconds()
            try destination.record(verdict, of: batch, attempt: attempt, at: at)
            switch verdict {
            case .delivered(let counts):
                report.accepted += counts.accepted
                report.duplicates += counts.duplicates
                report.quarantined += counts.quarantined
                report.suppressed += counts.suppressed
                if pause != nil {
                    try pauses.clearPause(of: destination.pauseKey)
                    pause = nil
                }
            case .retry(let after, let reason):
                let until = at + Self.milliseconds(after)
                try pauses.setPause(
                    DeliveryPause(until: until, failures: (pause?.failures ?? 0) + 1, reason: reason),
                    of: destination.pauseKey)
                report.willRetry += size
                report.stop = .unavailable
                report.pausedUntil = until
                report.lastFailure = reason
                return
            case .refused(let status, _):
                report.refused += size
                report.refusedByStatus[status, default: 0] += size
            case .shrink:
                report.shrinks += 1
                limit = max(1, size / 2)
            }
        }
        report.stop = .batchLimit
    }

    /// Sends one batch and asks the adapter what the answer means.
    private func send<Destination: DeliveryDestination>(
        _ batch: Destination.Batch, to destination: Destination,
        attempt: Int, report: inout DeliveryReport
    ) async -> DeliveryVerdict {
        let request: HTTPRequest
        do {
            request = try destination.request(for: batch, attempt: attempt)
        } catch {
            report.lastStatus = nil
            return destination.verdict(
                for: .other(detail: "the request could not be built: \(type(of: error))"),
                of: batch, attempt: attempt)
        }
        report.requests += 1
        report.bytesSent += request.body.count
        do {
            let response = try await transport.send(request)
            report.lastStatus = response.status
            let verdict = destination.verdict(for: response, of: batch, attempt: attempt, now: now.milliseconds())
            switch verdict {
            case .retry(_, let reason), .shrink(let reason): report.lastFailure = reason
            case .refused(let status, _): report.lastFailure = "\(destination.displayName) answered HTTP \(status)"
            case .delivered: break
            }
            return verdict
        } catch {
            let transportError = error as? TransportError ?? .other(detail: String(describing: type(of: error)))
            report.lastStatus = nil
            return destination.verdict(for: transportError, of: batch, attempt: attempt)
        }
    }

    /// `duration` in whole milliseconds, saturating instead of overflowing.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let components = duration.components
        let (product, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return components.seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return product + components.attoseconds / 1_000_000_000_000_000
    }
}
