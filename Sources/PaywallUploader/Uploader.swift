import Foundation
import PaywallCore
import PaywallDelivery

/// Sends every stored event to a collector: in `seq` order, as gzip NDJSON batches of at
/// most 1,000 events and 512 KiB, advancing the upload cursor in the transaction that records each
/// 2xx. At-least-once with stable ids; the collector's dedupe makes it exactly-once centrally.
///
/// The delivery itself — lease, destination-wide pause, retries, summary — is the shared
/// ``DeliveryEngine``; this type is the collector's adapter and its configuration.
///
/// ```swift
/// let uploader = Uploader(queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(),
///                         configuration: UploaderConfiguration(endpoint: url, writeKey: key, forwarding: .device),
///                         now: .system)
/// if case .completed(let report) = try await uploader.uploadOnce() { print(report.uploadDescription) }
/// ```
public final class Uploader: Sendable {
    /// The configuration this uploader was made with.
    public let configuration: UploaderConfiguration
    private let destination: CollectorDestination
    private let engine: DeliveryEngine

    /// Creates an uploader.
    /// - Parameters:
    ///   - queue: the store's events, cursor, lease and pause.
    ///   - transport: how requests are sent (`URLSessionTransport` in production).
    ///   - configuration: endpoint, key, forwarding side, limits and retry policy.
    ///   - now: the wall clock for the lease and the pause.
    public init(
        queue: any EventUploadQueue, transport: any HTTPTransport, configuration: UploaderConfiguration, now: Now
    ) {
        self.configuration = configuration
        destination = CollectorDestination(queue: queue, configuration: configuration)
        engine = DeliveryEngine(
            lease: queue, pauses: queue, transport: transport, now: now,
            leaseDuration: configuration.leaseDuration, leaseOwner: configuration.leaseOwner)
    }

    /// Runs one pass: up to ``UploaderConfiguration/maxBatches`` requests, unless the collector is
    /// paused by an earlier failure or another pass holds the lease.
    /// - Returns: ``DeliveryPass/busy`` when another upload pass holds this database, else the report.
    /// - Throws: the queue's storage errors.
    public func uploadOnce() async throws -> DeliveryPass {
        try await engine.run(destination, maxBatches: configuration.maxBatches, batchLimit: configuration.batchSize)
    }
}

extension Uploader: DeliveryPassRunning {
    /// ``uploadOnce()``, for a ``DeliveryLoop``.
    public func runPass() async throws -> DeliveryPass { try await uploadOnce() }
}

extension DeliveryReport {
    /// `uploaded 1000, duplicates 0, quarantined 0 (1 request, 41,233 bytes sent; nothing due)`.
    public var uploadDescription: String {
        var text =
            "uploaded \(accepted), duplicates \(duplicates), quarantined \(quarantined) "
            + "(\(requests) request\(requests == 1 ? "" : "s"), \(bytesSent) bytes sent; \(stop.rawValue))"
        if unavailable, let lastFailure { text += ": \(lastFailure)" }
        return text
    }

}
