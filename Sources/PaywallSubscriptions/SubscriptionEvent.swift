import Foundation

/// One RevenueCat webhook body, extracted into the columns of `subscription_events` (each `nil`
/// when the body does not carry it) and the customer keys it is stored under.
public struct SubscriptionEvent: Sendable, Equatable {
    /// `event.id`: the delivery's identity (a repeat is a duplicate).
    public var id: String
    /// `event.type` as sent (unknown types are kept as they are).
    public var type: String?
    /// `event.environment` as sent (`PRODUCTION`, `SANDBOX`).
    public var environment: String?
    /// `event.event_timestamp_ms`.
    public var eventTimestampMs: Int64?
    /// `event.app_user_id`.
    public var appUserID: String?
    /// `event.original_app_user_id`.
    public var originalAppUserID: String?
    /// `event.aliases`.
    public var aliases: [String]
    /// `event.product_id`.
    public var productID: String?
    /// `event.period_type` (`TRIAL`, `INTRO`, `NORMAL`, …).
    public var periodType: String?
    /// `event.purchased_at_ms`.
    public var purchasedAtMs: Int64?
    /// `event.expiration_at_ms`.
    public var expirationAtMs: Int64?
    /// `event.store`.
    public var store: String?
    /// `event.transaction_id`.
    public var transactionID: String?
    /// `event.original_transaction_id`: the subscription the event belongs to.
    public var originalTransactionID: String?
    /// `event.is_trial_conversion`.
    public var isTrialConversion: Bool?
    /// `event.presented_offering_id`.
    public var presentedOfferingID: String?
    /// `event.price` (US dollars) in micro-dollars, rounded half to even.
    public var priceMicros: Int64?
    /// The price's proceeds in micro-dollars (see ``Money/proceedsMicros(price:tax:commission:takehome:)``).
    public var proceedsMicros: Int64?
    /// `event.currency`.
    public var currency: String?
    /// The customers a `TRANSFER` moved purchases between (`transferred_from`, `transferred_to`):
    /// not customer keys, but ids a forgotten customer's suppression and erasure look at.
    public var transferredIDs: [String]

    /// `app_user_id`, `original_app_user_id` and every alias, each once (exact bytes), empty ids left out:
    /// the rows of `subscription_customer_keys`.
    public var customerKeys: [String] {
        var seen = Set<[UInt8]>()
        var keys: [String] = []
        for key in [appUserID, originalAppUserID].compactMap({ $0 }) + aliases where !key.isEmpty {
            if seen.insert(Array(key.utf8)).inserted { keys.append(key) }
        }
        return keys
    }

    /// Every customer id the body names: the customer keys and the transferred ids.
    public var customerIDs: [String] { customerKeys + transferredIDs.filter { !$0.isEmpty } }

    /// Whether the event counts only in data quality: `environment = SANDBOX` or type `TEST`.
    public var isSandbox: Bool { environment == "SANDBOX" || type == "TEST" }

    /// An event with only its id (every other column absent).
    public init(id: String) {
        self.id = id
        aliases = []
        transferredIDs = []
    }
}
