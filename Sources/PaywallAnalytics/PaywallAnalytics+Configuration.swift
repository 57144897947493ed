import Foundation
import PaywallCore
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

extension PaywallAnalytics {
    /// Who delivers impressions to RevenueCat from this install.
    public enum Forwarding: Sendable {
        /// This project's HTTP forwarder (`POST /v1/events` with the configured public SDK key).
        case http
        /// The app's own closure, called once per impression — typically RevenueCat's SDK:
        /// `Purchases.shared.trackCustomPaywallImpression(…)`. Returning counts as delivered; a
        /// throw is retried with the configuration's ``RetryPolicy`` backoff. See ``ClosureForwarder``.
        case closure(ClosureForwarder.Handler)
        /// Nothing is sent from here; impressions stay pending in the outbox (for the collector
        /// or a later configuration).
        case off
    }

    /// Settings for ``init(configuration:environment:clock:now:diagnostics:)``.
    public struct Configuration: Sendable {
        /// The SQLite file (created with mode 0600 if missing, its missing folders with 0700).
        /// ``DatabaseLocation/applicationSupport(fileName:appGroup:folder:environment:)`` gives
        /// a place that works in an app.
        public var databasePath: String
        /// Who delivers impressions: ``Forwarding/http`` (default), a closure, or off.
        public var forwarding: Forwarding
        /// The RevenueCat public SDK key for ``Forwarding/http``; `nil` reads `REVENUECAT_API_KEY` in a
        /// command-line or server process (``PaywallAnalytics/keyEnvironment``), never in an app.
        /// Missing or placeholder keys turn forwarding off (reported once through diagnostics);
        /// impressions stay queued.
        public var revenueCatAPIKey: String?
        /// RevenueCat's base URL for ``Forwarding/http``.
        public var revenueCatEndpoint: URL
        /// Send `X-Is-Sandbox: true` (a TestFlight or debug build); Test Store keys always do.
        public var revenueCatSandbox: Bool
        /// Time between forwarding passes when no flush triggers one sooner.
        public var forwardingInterval: Duration
        /// Backoff after a failed delivery (HTTP or closure).
        public var retryPolicy: RetryPolicy
        /// The recorder's batch size, bound and interval.
        public var flushPolicy: FlushPolicy
        /// The default impression mode (automatic, 1 s dwell); `open(…, impressionMode:)` overrides it.
        public var impressionMode: PresentationTracker.ImpressionMode
        /// The collector this install uploads every event to; `nil` (the default) keeps
        /// events on the device. Its `X-Paywall-Forwarding` side follows ``forwarding``: `device` for
        /// ``Forwarding/http`` and ``Forwarding/closure(_:)``, `collector` for ``Forwarding/off``.
        public var collector: CollectorConfiguration?
        /// How often a paywall on screen has its visible time saved in the store besides every change
        /// (`nil`: only on changes and `tracker.checkpoint()`). A process killed with a paywall open
        /// has it closed at the next start with `via = abandoned` and the visible time of the last save.
        public var checkpointInterval: Duration?
        /// Whether the facade observes the app's lifecycle itself (default `true`): on iOS, iPadOS,
        /// tvOS and visionOS the background and foreground notifications call `suspend()` (inside a
        /// background task) and `resume()`; on macOS hiding and showing the app. `false`: the app calls
        /// `handle(_:)` or `suspend()` / `resume()` itself. No effect on other platforms.
        public var observesAppLifecycle: Bool
        /// Overrides of the context written on every event: a field set here replaces what the
        /// library reads on the device (``DeviceContext``: the bundle's versions, the platform, the
        /// OS version, its own version, the locale); unset fields keep the device's. An override
        /// that breaks the catalog's limits is left out and reported once through diagnostics.
        public var eventContext: EventContext

        /// Creates a configuration with the defaults of a mature deployment.
        public init(
            databasePath: String, forwarding: Forwarding = .http, revenueCatAPIKey: String? = nil,
            revenueCatEndpoint: URL = ForwarderConfiguration.defaultEndpoint, revenueCatSandbox: Bool = false,
            forwardingInterval: Duration = .seconds(60), retryPolicy: RetryPolicy = RetryPolicy(),
            flushPolicy: FlushPolicy = FlushPolicy(),
            impressionMode: PresentationTracker.ImpressionMode = .default,
            collector: CollectorConfiguration? = nil, checkpointInterval: Duration? = .seconds(5),
            observesAppLifecycle: Bool = true, eventContext: EventContext = .empty
        ) {
            self.observesAppLifecycle = observesAppLifecycle
            self.eventContext = eventContext
            self.checkpointInterval = checkpointInterval
            self.databasePath = databasePath
            self.forwarding = forwarding
            self.revenueCatAPIKey = revenueCatAPIKey
            self.revenueCatEndpoint = revenueCatEndpoint
            self.revenueCatSandbox = revenueCatSandbox
            self.forwardingInterval = forwardingInterval
            self.retryPolicy = retryPolicy
            self.flushPolicy = flushPolicy
            self.impressionMode = impressionMode
            self.collector = collector
        }
    }

    /// The context written on every event: the device's (``DeviceContext``) under the
    /// configuration's overrides; each override that breaks the catalog's limits is left out and
    /// named through `diagnostics`.
    static func eventContext(
        _ configuration: Configuration, device: EventContext = DeviceContext.current(),
        diagnostics: (String) -> Void
    ) -> EventContext {
        var override = configuration.eventContext
        func checked(_ value: String?, _ field: EnvelopeField) -> String? {
            guard let value else { return nil }
            if let fitting = DeviceContext.fitting(value, field) { return fitting }
            diagnostics(
                "the configuration's eventContext \(field.rawValue) breaks the catalog's limits for it and was left "
                    + "out; the device's value is written instead")
            return nil
        }
        override.appVersion = checked(override.appVersion, .appVersion)
        override.build = checked(override.build, .build)
        override.osVersion = checked(override.osVersion, .osVersion)
        override.sdkVersion = checked(override.sdkVersion, .sdkVersion)
        override.locale = checked(override.locale, .locale)
        return device.overridden(by: override)
    }
}
