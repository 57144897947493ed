import Foundation
import PaywallCore

/// The JSON body RevenueCat's `POST /v1/events` expects for custom paywall impressions,
/// written by hand so the key order is stable (golden-testable) and absent keys are omitted.
///
/// Key order follows RevenueCat's documented request body: `id`, `version`, `type`, `app_user_id`,
/// `app_session_id`, `timestamp`, `paywall_id`, `offering_id`, `presented_offering_context`.
///
/// ```swift
/// let body = ImpressionWireFormat.body(for: [record])   // {"events":[{"id":"…",…}]}
/// ```
public enum ImpressionWireFormat {
    /// The event `type` RevenueCat's SDKs send for a custom paywall impression.
    public static let eventType = "custom_paywall_impression"
    /// The event schema `version`.
    public static let eventVersion = 1
    /// The most events one request carries (the SDK's `defaultEventBatchSize`).
    public static let maxBatchSize = 50

    /// The request body for `events`, in the order given.
    /// - Parameter events: stored `paywall_shown` records.
    /// - Returns: UTF-8 JSON `{"events":[…]}`.
    public static func body(for events: [EventRecord]) -> Data {
        var out = "{\"events\":["
        out.reserveCapacity(64 + events.count * 320)
        for (index, event) in events.enumerated() {
            if index > 0 { out += "," }
            appendEvent(event, to: &out)
        }
        out += "]}"
        return Data(out.utf8)
    }

    /// Appends one event object.
    static func appendEvent(_ event: EventRecord, to out: inout String) {
        out += "{\"id\":\""
        out += event.id.uuidString
        out += "\",\"version\":\(eventVersion),\"type\":\"\(eventType)\",\"app_user_id\":"
        appendString(event.userID, to: &out)
        if let session = event.sessionID {
            out += ",\"app_session_id\":\""
            out += session.uuidString
            out += "\""
        }
        out += ",\"timestamp\":"
        out += String(event.occurredAt)
        out += ",\"paywall_id\":"
        appendString(event.properties.source, to: &out)
        if let offering = event.properties.offeringID {
            out += ",\"offering_id\":"
            appendString(offering, to: &out)
        }
        if let placement = event.properties.placementID {
            out += ",\"presented_offering_context\":{\"placement_identifier\":"
            appendString(placement, to: &out)
            out += "}"
        }
        out += "}"
    }

    /// Appends `value` as a JSON string literal (RFC 8259 escaping, UTF-8 kept as is).
    static func appendString(_ value: String, to out: inout String) { JSONString.append(value, to: &out) }
}
