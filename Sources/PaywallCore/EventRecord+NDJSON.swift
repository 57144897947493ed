import Foundation

extension EventRecord {
    /// The event as one flat NDJSON object (the import format, and the collector's wire format):
    /// envelope fields and catalog properties side by side, snake_case names, absent optionals left
    /// out, no trailing newline.
    ///
    /// ```swift
    /// event.ndjsonLine  // {"id":"0199…","name":"paywall_shown","occurred_at":1764400000000,…}
    /// ```
    public var ndjsonLine: String {
        var out = "{\"id\":\"\(id.uuidString)\",\"name\":\"\(name.rawValue)\",\"occurred_at\":\(occurredAt)"
        out += ",\"user_id\":\(JSONString.quoted(userID))"
        if let session = sessionID { out += ",\"session_id\":\"\(session.uuidString)\"" }
        out += ",\"catalog_version\":\(catalogVersion),\"pw_id\":\"\(properties.pwID.uuidString)\""
        out += ",\"source\":\(JSONString.quoted(properties.source))"
        if let value = properties.offeringID { out += ",\"offering_id\":\(JSONString.quoted(value))" }
        if let value = properties.placementID { out += ",\"placement_id\":\(JSONString.quoted(value))" }
        if let value = properties.product { out += ",\"product\":\(JSONString.quoted(value))" }
        if let value = properties.result { out += ",\"result\":\"\(value.rawValue)\"" }
        if let value = properties.via { out += ",\"via\":\"\(value.rawValue)\"" }
        if let value = properties.openS { out += ",\"open_s\":\(value)" }
        return out + "}"
    }
}
