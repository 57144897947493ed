import Foundation
import PaywallCore
import PaywallDelivery
import PaywallWire

/// Everything an ``Uploader`` needs besides its queue and transport.
public struct UploaderConfiguration: Sendable {
    /// The most events in one request.
    public static let maxBatchEvents = 1_000
    /// The most NDJSON bytes in one request, before compression.
    public static let maxBatchBytes = 512 * 1024

    /// The collector's base URL; requests go to `{endpoint}/v1/events`.
    public var endpoint: URL
    /// The write key, sent as `Authorization: Bearer …`.
    public var writeKey: CollectorKey
    /// Who sends this store's impressions to RevenueCat, sent as `X-Paywall-Forwarding`
    /// (``CollectorWire/Header/forwarding``):
    /// ``ForwardingParty/device`` when this install forwards them itself, ``ForwardingParty/collector``
    /// when the collector does (then they leave this store's outbox once uploaded).
    public var forwarding: ForwardingParty
    /// Events per request, 1…1,000.
    public var batchSize: Int
    /// NDJSON bytes per request before compression, at most 512 KiB (one event always goes alone).
    public var batchBytes: Int
    /// Requests one pass makes at most.
    public var maxBatches: Int
    /// Whether bodies are sent gzip-compressed (`Content-Encoding: gzip`).
    public var gzip: Bool
    /// How long a pass's lease lasts; renewed before every request.
    public var leaseDuration: Duration
    /// Names the lease holder (each pass appends a fresh UUID); appears in `meta`, never the key.
    public var leaseOwner: String
    /// The retry rules (backoff with full jitter, `Retry-After`; 401 and 403 wait the cap).
    public var retryPolicy: RetryPolicy

    /// Creates a configuration.
    public init(
        endpoint: URL, writeKey: CollectorKey, forwarding: ForwardingParty,
        batchSize: Int = UploaderConfiguration.maxBatchEvents, batchBytes: Int = UploaderConfiguration.maxBatchBytes,
        maxBatches: Int = 100, gzip: Bool = true, leaseDuration: Duration = .seconds(120),
        leaseOwner: String = "uploader-\(UUID().uuidString)", retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.endpoint = endpoint
        self.writeKey = writeKey
        self.forwarding = forwarding
        self.batchSize = min(max(batchSize, 1), Self.maxBatchEvents)
        self.batchBytes = min(max(batchBytes, 1), Self.maxBatchBytes)
        self.maxBatches = max(maxBatches, 1)
        self.gzip = gzip
        self.leaseDuration = leaseDuration
        self.leaseOwner = leaseOwner
        self.retryPolicy = retryPolicy
    }

    /// The events URL, `{endpoint}/v1/events` (``CollectorWire/url(on:)``).
    public var eventsURL: URL { CollectorWire.url(on: endpoint) }
}
