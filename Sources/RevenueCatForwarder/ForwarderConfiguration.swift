import Foundation
import PaywallCore
import PaywallDelivery
import PaywallWire

/// Everything a ``Forwarder`` needs besides its outbox and transport.
public struct ForwarderConfiguration: Sendable {
    /// RevenueCat's default base URL for paywall events.
    public static let defaultEndpoint = URL(string: "https://api-paywalls.revenuecat.com")!
    /// This project's version, sent as `X-Version`.
    public static let clientVersion = ProductVersion.current
    /// The `X-Platform` value for the platform this was compiled for.
    public static var defaultPlatform: String {
        #if os(iOS)
            "iOS"
        #elseif os(macOS)
            "macOS"
        #elseif os(Linux)
            "linux"
        #else
            "other"
        #endif
    }

    /// The base URL; requests go to `{endpoint}/v1/events`.
    public var endpoint: URL
    /// The public SDK key sent as `Authorization: Bearer …`.
    public var apiKey: APIKey
    /// Events per request, 1…50.
    public var batchSize: Int
    /// Requests one pass makes at most (RevenueCat's SDK: 10 per flush).
    public var maxBatches: Int
    /// How long a pass's lease lasts; renewed before every request.
    public var leaseDuration: Duration
    /// Names the lease holder (each pass appends a fresh UUID); appears in `meta`, never the key.
    public var leaseOwner: String
    /// The retry rules.
    public var retryPolicy: RetryPolicy
    /// The `X-Platform` header.
    public var platform: String
    /// The `X-Version` header.
    public var version: String
    /// Whether the app runs in a sandbox (TestFlight, Xcode, a StoreKit test): sent as
    /// `X-Is-Sandbox: true`. Test Store keys (`test_…`) are always sent as sandbox.
    public var sandbox: Bool

    /// The `X-Is-Sandbox` value: `true` for a Test Store key or a sandbox configuration.
    public var isSandbox: Bool { sandbox || apiKey.isTestStoreKey }

    /// Creates a configuration.
    /// - Parameter sandbox: send `X-Is-Sandbox: true` although the key is not a Test Store key.
    public init(
        apiKey: APIKey,
        endpoint: URL = ForwarderConfiguration.defaultEndpoint,
        batchSize: Int = ImpressionWireFormat.maxBatchSize,
        maxBatches: Int = 10,
        leaseDuration: Duration = .seconds(120),
        leaseOwner: String = "forwarder-\(UUID().uuidString)",
        retryPolicy: RetryPolicy = RetryPolicy(),
        platform: String = ForwarderConfiguration.defaultPlatform,
        version: String = ForwarderConfiguration.clientVersion,
        sandbox: Bool = false
    ) {
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.batchSize = min(max(batchSize, 1), ImpressionWireFormat.maxBatchSize)
        self.maxBatches = max(maxBatches, 1)
        self.leaseDuration = leaseDuration
        self.leaseOwner = leaseOwner
        self.retryPolicy = retryPolicy
        self.platform = platform
        self.version = version
        self.sandbox = sandbox
    }

    /// The events URL, `{endpoint}/v1/events`.
    public var eventsURL: URL {
        var base = endpoint.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/v1/events") ?? endpoint.appendingPathComponent("v1/events")
    }

    /// The request for one batch.
    /// - Parameters:
    ///   - events: at most ``batchSize`` records, already in `occurred_at` order.
    ///   - retryCount: `X-Retry-Count`: 0 on the first attempt, then the number of earlier attempts.
    public func request(for events: [EventRecord], retryCount: Int) -> HTTPRequest {
        HTTPRequest(
            method: "POST",
            url: eventsURL,
            headers: [
                HTTPHeader("Authorization", "Bearer \(apiKey.value)"),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("X-Platform", platform),
                HTTPHeader("X-Version", version),
                HTTPHeader("X-Retry-Count", String(retryCount)),
                HTTPHeader("X-Is-Sandbox", isSandbox ? "true" : "false"),
            ],
            body: ImpressionWireFormat.body(for: events)
        )
    }
}
