import Foundation
import PaywallCore

/// Writes an event as one flat NDJSON object (the import format): envelope fields and catalog
/// properties side by side, snake_case names, absent optionals left out.
public enum NDJSONLine {
    /// The line for `event`, without a trailing newline.
    ///
    /// ```swift
    /// NDJSONLine.encode(event)  // {"id":"0199…","name":"paywall_shown","occurred_at":1764400000000,…}
    /// ```
    public static func encode(_ event: EventRecord) -> String {
        let properties = event.properties
        var out = "{\"id\":\"\(event.id.uuidString)\",\"name\":\"\(event.name.rawValue)\",\"occurred_at\":\(event.occurredAt)"
        out += ",\"user_id\":\(quoted(event.userID))"
        if let session = event.sessionID { out += ",\"session_id\":\"\(session.uuidString)\"" }
        out += ",\"catalog_version\":\(event.catalogVersion),\"pw_id\":\"\(properties.pwID.uuidString)\""
        out += ",\"source\":\(quoted(properties.source))"
        if let value = properties.offeringID { out += ",\"offering_id\":\(quoted(value))" }
        if let value = properties.placementID { out += ",\"placement_id\":\(quoted(value))" }
        if let value = properties.product { out += ",\"product\":\(quoted(value))" }
        if let value = properties.result { out += ",\"result\":\"\(value.rawValue)\"" }
        if let value = properties.via { out += ",\"via\":\"\(value.rawValue)\"" }
        if let value = properties.openS { out += ",\"open_s\":\(value)" }
        return out + "}"
    }

    /// A JSON string literal for `text`.
    public static func quoted(_ text: String) -> String { JSONString.quoted(text) }
}
