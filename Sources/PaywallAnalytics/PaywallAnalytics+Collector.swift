import Foundation
import PaywallCore
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

extension PaywallAnalytics {
    /// Where this install uploads its events: a collector (`paywall-analytics serve`) and the write
    /// key it gave this app, plus how long the phone keeps what was uploaded (docs/app.md, "Uploading
    /// to a collector").
    ///
    /// ```swift
    /// var configuration = PaywallAnalytics.Configuration(databasePath: path)
    /// configuration.collector = .init(endpoint: URL(string: "https://events.example.com")!, writeKey: "pwk_…")
    /// ```
    public struct CollectorConfiguration: Sendable {
        /// The collector's base URL; requests go to `{endpoint}/v1/events`.
        public var endpoint: URL
        /// The write key (`pwk_…`, from `keys add NAME` on the collector); `nil` reads
        /// `PAYWALL_COLLECTOR_KEY`. Missing or malformed keys turn uploading off (said through
        /// diagnostics); every event stays on the device.
        public var writeKey: String?
        /// Time between upload passes when no flush triggers one sooner.
        public var uploadInterval: Duration
        /// Uploaded events (impressions: also delivered or dead-lettered) older than this are deleted
        /// from the device (default 7 days).
        public var retention: Duration
        /// Past this file size, the oldest uploaded events go first, whatever their age (default 16 MiB).
        public var byteBudget: Int
        /// Requests one upload pass makes at most.
        public var maxBatches: Int

        /// Creates a collector configuration; by default an upload pass every minute of up to 100 requests,
        /// and uploaded events kept on the phone for 7 days within 16 MiB.
        public init(
            endpoint: URL, writeKey: String? = nil, uploadInterval: Duration = .seconds(60),
            retention: Duration = .seconds(7 * 24 * 3600), byteBudget: Int = 16 << 20, maxBatches: Int = 100
        ) {
            self.endpoint = endpoint
            self.writeKey = writeKey
            self.uploadInterval = uploadInterval
            self.retention = retention
            self.byteBudget = byteBudget
            self.maxBatches = maxBatches
        }
    }

    /// Whether this install uploads to a collector, and if not, why.
    public enum UploadStatus: Sendable, Equatable {
        /// Uploading runs to this endpoint; impressions are forwarded to RevenueCat by `forwarding`.
        case on(endpoint: URL, forwarding: ForwardingParty)
        /// Uploading is off; the sentence says why and what to do.
        case off(reason: String)
    }

    /// The `X-Paywall-Forwarding` side for a forwarding choice: the install forwards itself with
    /// ``Forwarding/http`` or ``Forwarding/closure(_:)`` (`device`), else the collector does. One
    /// choice, one side: an impression never goes to RevenueCat from both.
    static func forwardingParty(for forwarding: Forwarding) -> ForwardingParty {
        switch forwarding {
        case .http, .closure: .device
        case .off: .collector
        }
    }

    /// The uploader for `configuration`, or why there is none.
    static func makeUploader(
        _ configuration: Configuration, store: EventStore, environment: [String: String],
        now: Now
    ) -> (uploader: Uploader?, status: UploadStatus) {
        guard let collector = configuration.collector else {
            return (
                nil, .off(reason: "no collector is configured (Configuration.collector); events stay on this device")
            )
        }
        let key: CollectorKey
        do {
            key = try CollectorKey.resolve(configured: collector.writeKey, environment: environment)
        } catch {
            return (nil, .off(reason: "uploading to the collector is off: \(error)"))
        }
        if let problem = CollectorWire.endpointProblem(collector.endpoint) {
            return (
                nil,
                .off(
                    reason:
                        "uploading to the collector is off: the endpoint is not a collector's base URL (\(problem)); "
                        + "set Configuration.collector.endpoint to the collector's address, e.g. https://events.example.com"
                )
            )
        }
        let party = forwardingParty(for: configuration.forwarding)
        let uploader = Uploader(
            queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
            configuration: UploaderConfiguration(
                endpoint: collector.endpoint, writeKey: key, forwarding: party,
                maxBatches: collector.maxBatches, retryPolicy: configuration.retryPolicy),
            now: now)
        return (uploader, .on(endpoint: collector.endpoint, forwarding: party))
    }

    /// One diagnostic for an upload pass that could not send (the reason says what to do), none otherwise.
    static func uploadDiagnostics(_ result: Result<DeliveryPass, any Error>) -> [String] {
        switch result {
        case .failure(let error): return ["uploading to the collector failed: \(error)"]
        case .success(.busy): return []
        case .success(.completed(let report)):
            guard report.stop == .unavailable, let failure = report.lastFailure else { return [] }
            return ["uploading to the collector paused: \(failure)"]
        }
    }
}

/// Device retention run after each upload pass (only when a collector is configured).
struct DeviceRetention: Sendable {
    let store: EventStore
    let policy: RetentionPolicy
    let now: Now

    init(store: EventStore, collector: PaywallAnalytics.CollectorConfiguration, now: Now) {
        self.store = store
        let components = collector.retention.components
        let (millis, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        policy = RetentionPolicy(retentionMs: overflow ? Int64.max / 2 : millis, byteBudget: collector.byteBudget)
        self.now = now
    }

    /// Prunes after a completed pass; a failure goes to diagnostics (nothing is lost by not pruning).
    func afterUpload(_ result: Result<DeliveryPass, any Error>, diagnostics: @Sendable (String) -> Void) {
        guard case .success(.completed) = result else { return }
        do {
            try store.prune(policy, now: now.milliseconds())
        } catch {
            diagnostics(
                "device retention could not delete uploaded events this time (\(error)); they stay and "
                    + "are pruned after a later upload")
        }
    }
}
