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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        appendNDJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``ndjsonLine``'s bytes to `out` (no newline).
    ///
    /// Design note: the uploader encodes every stored event with this, so it writes bytes directly
    /// (ids through ``UUIDText/withCanonical(_:_:)``, the uppercase `uuidString` form, without
    /// Foundation's formatter; strings escaped byte by byte, which gives the same text as escaping by
    /// scalar, since only ASCII is ever escaped). `EventRecordNDJSONTests` holds it equal to the
    /// line-by-line definition above and to what the import's validator reads back.
    public func appendNDJSON(to out: inout [UInt8]) {
        func raw(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        func uuid(_ value: UUID) {
            out.append(UInt8(ascii: "\""))
            UUIDText.withCanonical(value) { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
        }
        func string(_ value: String) {
            JSONString.appendBytes(value, to: &out)
        }
        raw("{\"id\":")
        uuid(id)
        raw(",\"name\":\"")
        out.append(contentsOf: name.rawValue.utf8)
        raw("\",\"occurred_at\":")
        out.append(contentsOf: String(occurredAt).utf8)
        raw(",\"user_id\":")
        string(userID)
        if let session = sessionID {
            raw(",\"session_id\":")
            uuid(session)
        }
        raw(",\"catalog_version\":")
        out.append(contentsOf: String(catalogVersion).utf8)
        raw(",\"pw_id\":")
        uuid(properties.pwID)
        raw(",\"source\":")
        string(properties.source)
        if let value = properties.offeringID {
            raw(",\"offering_id\":")
            string(value)
        }
        if let value = properties.placementID {
            raw(",\"placement_id\":")
            string(value)
        }
        if let value = properties.product {
            raw(",\"product\":")
            string(value)
        }
        if let value = properties.result {
            raw(",\"result\":\"")
            out.append(contentsOf: value.rawValue.utf8)
            raw("\"")
        }
        if let value = properties.via {
            raw(",\"via\":\"")
            out.append(contentsOf: value.rawValue.utf8)
            raw("\"")
        }
        if let value = properties.openS {
            raw(",\"open_s\":")
            out.append(contentsOf: "\(value)".utf8)
        }
        raw("}")
    }
}
