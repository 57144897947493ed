import Foundation
import PaywallCore
import PaywallStore
import RevenueCatForwarder

/// Everything an app or paywall server embeds, wired together: the batching ``Recorder`` on a
/// SQLite file, the ``PresentationTracker`` feeding it, and the RevenueCat forwarder running
/// periodically and after every ``flush()``.
///
/// ```swift
/// let analytics = try PaywallAnalytics(configuration: .init(databasePath: path)) { print($0) }
/// let paywall = try analytics.tracker.open(source: "onboarding", userID: appUserID)
/// try paywall.appeared()
/// try paywall.close(.dismissed(via: .closeButton))
/// try await analytics.flush()       // durable, then forwarded
/// try await analytics.shutdown()
/// ```
public final class PaywallAnalytics: Sendable {
    /// Settings for ``init(configuration:environment:clock:now:diagnostics:)``.
    public struct Configuration: Sendable {
        /// The SQLite file (created with mode 0600 if missing).
        public var databasePath: String
        /// The RevenueCat public SDK key; `nil` reads `REVENUECAT_API_KEY`. Missing or placeholder
        /// keys turn forwarding off (reported once through diagnostics); impressions stay queued.
        public var revenueCatAPIKey: String?
        /// RevenueCat's base URL.
        public var revenueCatEndpoint: URL
        /// Time between forwarding passes when no flush triggers one sooner.
        public var forwardingInterval: Duration
        /// The recorder's batch size, bound and interval.
        public var flushPolicy: FlushPolicy
        /// How impressions are decided (default: automatic, 1 s dwell).
        public var impressionMode: PresentationTracker.ImpressionMode

        /// Creates a configuration with the defaults of a mature deployment.
        public init(databasePath: String, revenueCatAPIKey: String? = nil,
                    revenueCatEndpoint: URL = ForwarderConfiguration.defaultEndpoint,
                    forwardingInterval: Duration = .seconds(60), flushPolicy: FlushPolicy = FlushPolicy(),
                    impressionMode: PresentationTracker.ImpressionMode = .default) {
            self.databasePath = databasePath
            self.revenueCatAPIKey = revenueCatAPIKey
            self.revenueCatEndpoint = revenueCatEndpoint
            self.forwardingInterval = forwardingInterval
            self.flushPolicy = flushPolicy
            self.impressionMode = impressionMode
        }
    }

    /// The event sink; record typed events here directly if you do not use the tracker.
    public let recorder: Recorder
    /// Opens presentations and emits their events into ``recorder``.
    public let tracker: PresentationTracker
    /// The forwarding loop, `nil` when no usable API key is configured.
    public let forwarding: ForwardingLoop?
    private let forwardingTask: Task<Void, Never>?

    /// Opens the store, starts the recorder and, when a key is configured, the forwarding loop.
    ///
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - environment: where `REVENUECAT_API_KEY` is read from when the configuration has no key.
    ///   - clock: the monotonic clock for dwell, intervals and backoff.
    ///   - now: the wall clock for timestamps.
    ///   - diagnostics: recorder failures, forwarding failures and the key warning, as sentences.
    /// - Throws: `StorageError` when the database cannot be opened (corrupt, read-only, newer schema).
    public init(configuration: Configuration,
                environment: [String: String] = ProcessInfo.processInfo.environment,
                clock: any Clock<Duration> = ContinuousClock(), now: Now = .system,
                diagnostics: @escaping @Sendable (String) -> Void = { _ in }) throws {
        let store = try EventStore(path: configuration.databasePath, now: now)
        recorder = Recorder(store: store, policy: configuration.flushPolicy, clock: clock) { diagnostics($0.description) }
        tracker = PresentationTracker(sink: recorder, clock: clock, now: now, impressionMode: configuration.impressionMode)
        do {
            let resolved = try APIKey.resolve(configured: configuration.revenueCatAPIKey, environment: environment)
            if let warning = resolved.warning { diagnostics(warning.description) }
            let forwarder = Forwarder(
                outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
                configuration: ForwarderConfiguration(apiKey: resolved.key, endpoint: configuration.revenueCatEndpoint),
                now: now)
            let loop = ForwardingLoop(forwarder: forwarder, interval: configuration.forwardingInterval, clock: clock) { result in
                switch result {
                case .failure(let error): diagnostics("RevenueCat forwarding failed: \(error)")
                case .success(.completed(let summary)): for message in Self.refusals(summary) { diagnostics(message) }
                case .success(.busy): break
                }
            }
            forwarding = loop
            forwardingTask = Task.detached { await loop.run() }
        } catch {
            diagnostics("RevenueCat forwarding is off: \(error)")
            forwarding = nil
            forwardingTask = nil
        }
    }

    /// Returns once everything recorded before the call is committed and durable, then asks the
    /// forwarder to send the new impressions without waiting for its interval.
    ///
    /// - Throws: `StorageError` when the commit failed (the events stay buffered and are retried).
    public func flush() async throws {
        try await recorder.flush()
        forwarding?.trigger()
    }

    /// Stops forwarding, commits what is buffered and closes the recorder.
    public func shutdown() async throws {
        forwardingTask?.cancel()
        try await recorder.close()
    }
}

extension PaywallAnalytics {
    /// One diagnostic per refusing status of a forwarding pass: how many impressions went to the
    /// dead letters and, for 401 and 403, that the key itself was refused.
    static func refusals(_ summary: ForwardingSummary) -> [String] {
        summary.deadLetteredByStatus.sorted { $0.key < $1.key }.map { status, count in
            let impressions = "\(count) impression\(count == 1 ? "" : "s")"
            if status == 401 || status == 403 {
                return "RevenueCat refused the API key (HTTP \(status)): \(impressions) went to the dead letters. Check that "
                    + "revenueCatAPIKey (or REVENUECAT_API_KEY) is this project's public SDK key, then requeue the dead letters."
            }
            return "RevenueCat refused \(impressions) (HTTP \(status)); they went to the dead letters with its answer."
        }
    }
}
