import Foundation
import PaywallCore
import PaywallLock
import RevenueCatForwarder

/// Shared test data.
enum Fixtures {
    /// A fake key of the App Store shape; tests search outputs for it.
    static let secret = "appl_TESTsecretKEY0123456789abcd"

    static var key: APIKey { try! APIKey(secret) }

    /// A deterministic impression: ids and times follow `index`.
    static func impression(_ index: Int, at base: Int64 = 1_764_400_000_000, full: Bool = true) -> EventRecord {
        let id = UUID(uuidString: String(format: "00000000-0000-7000-8000-%012X", index))!
        return EventRecord(
            id: id,
            name: .paywallShown,
            occurredAt: base + Int64(index),
            userID: "user_\(index % 97)",
            sessionID: full ? UUID(uuidString: String(format: "5E55100E-0000-4000-8000-%012X", index % 13))! : nil,
            properties: EventProperties(
                pwID: UUID(uuidString: String(format: "0E0E0E0E-0000-4000-8000-%012X", index))!,
                source: index % 2 == 0 ? "onboarding" : "settings",
                offeringID: full ? "default" : nil,
                placementID: full ? "onboarding_placement" : nil
            )
        )
    }

    static func impressions(_ count: Int, full: Bool = true) -> [EventRecord] {
        (0..<count).map { impression($0, full: full) }
    }

    /// A configuration for tests: fixed platform/version, fast deterministic retry policy.
    static func configuration(
        endpoint: URL,
        maxBatches: Int = 10,
        batchSize: Int = 50,
        random: @escaping @Sendable () -> Double = { 0.5 }
    ) -> ForwarderConfiguration {
        ForwarderConfiguration(
            apiKey: key,
            endpoint: endpoint,
            batchSize: batchSize,
            maxBatches: maxBatches,
            leaseOwner: "test-pass",
            retryPolicy: RetryPolicy(base: .seconds(1), cap: .seconds(60), random: random),
            platform: "iOS",
            version: "0.1.0"
        )
    }
}

/// A mutable test "now" shared with the forwarder.
final class TestTime: Sendable {
    private let value: Lock<Int64>
    init(_ start: Int64 = 1_764_500_000_000) { value = Lock(start) }
    var now: Now { Now { [self] in value.withLock { $0 } } }
    var current: Int64 { value.withLock { $0 } }
    func advance(ms: Int64) { value.withLock { $0 += ms } }
}
