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
        // The names come from ``EnvelopeField`` and the generated ``PropertyName`` (string literals,
        // so appending their UTF-8 copies bytes and allocates nothing).
        func key(_ name: String, first: Bool = false) {
            out.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        func uuid(_ value: UUID) {
            out.append(UInt8(ascii: "\""))
            UUIDText.withCanonical(value) { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
        }
        func ascii(_ value: String) {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: value.utf8)
            out.append(UInt8(ascii: "\""))
        }
        func string(_ value: String) {
            JSONString.appendBytes(value, to: &out)
        }
        key(EnvelopeField.id.rawValue, first: true)
        uuid(id)
        key(EnvelopeField.name.rawValue)
        ascii(name.rawValue)
        key(EnvelopeField.occurredAt.rawValue)
        out.append(contentsOf: String(occurredAt).utf8)
        key(EnvelopeField.userID.rawValue)
        string(userID)
        if let session = sessionID {
            key(EnvelopeField.sessionID.rawValue)
            uuid(session)
        }
        key(EnvelopeField.catalogVersion.rawValue)
        out.append(contentsOf: String(catalogVersion).utf8)
        if !context.isEmpty {
            for field in EventContext.fields {
                guard let value = context.text(field) else { continue }
                key(field.rawValue)
                string(value)
            }
        }
        key(PropertyName.pwID.rawValue)
        uuid(properties.pwID)
        key(PropertyName.source.rawValue)
        string(properties.source)
        if let value = properties.offeringID {
            key(PropertyName.offeringID.rawValue)
            string(value)
        }
        if let value = properties.placementID {
            key(PropertyName.placementID.rawValue)
            string(value)
        }
        if let value = properties.product {
            key(PropertyName.product.rawValue)
            string(value)
        }
        if let value = properties.result {
            key(PropertyName.result.rawValue)
            ascii(value.rawValue)
        }
        if let value = properties.via {
            key(PropertyName.via.rawValue)
            ascii(value.rawValue)
        }
        if let value = properties.openS {
            key(PropertyName.openS.rawValue)
            out.append(contentsOf: "\(value)".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}
