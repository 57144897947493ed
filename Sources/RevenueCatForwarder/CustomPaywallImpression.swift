import Foundation
import PaywallCore

/// One stored impression as handed to an app's own delivery closure (``ClosureForwarder``),
/// with the fields RevenueCat's `trackCustomPaywallImpression` takes and the rest of what
/// this project's wire format sends.
///
/// ```swift
/// Purchases.shared.trackCustomPaywallImpression(
///     CustomPaywallImpressionParams(paywallId: impression.paywallID, offeringId: impression.offeringID))
/// ```
public struct CustomPaywallImpression: Sendable, Hashable {
    /// The stored event's id (stable across retries).
    public var id: UUID
    /// The RevenueCat app user id the event was recorded for.
    public var appUserID: String
    /// The app session, if it was known.
    public var appSessionID: UUID?
    /// When the impression happened, Unix milliseconds.
    public var timestampMs: Int64
    /// The paywall's identifier: the presentation's `source`.
    public var paywallID: String
    /// The RevenueCat offering that served the paywall, if known.
    public var offeringID: String?
    /// The RevenueCat placement, if known.
    public var placementID: String?

    /// When the impression happened.
    public var timestamp: Date { Date(timeIntervalSince1970: Double(timestampMs) / 1000) }

    /// Creates an impression from a stored `paywall_shown` record.
    public init(record: EventRecord) {
        id = record.id
        appUserID = record.userID
        appSessionID = record.sessionID
        timestampMs = record.occurredAt
        paywallID = record.properties.source
        offeringID = record.properties.offeringID
        placementID = record.properties.placementID
    }
}
