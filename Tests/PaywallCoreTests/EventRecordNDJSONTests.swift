import Foundation
import PaywallCore
import PaywallSimulation
import Testing

/// `EventRecord.appendNDJSON` (the byte writer the uploader and `import`'s tests use) gives exactly
/// the line the field-by-field definition gives, and the import's validator reads it back as the
/// same event.
struct EventRecordNDJSONTests {
    /// The line spelled with Foundation's `uuidString` and scalar-by-scalar escaping: the definition the
    /// byte writer replaced, kept here as its oracle.
    static func reference(_ event: EventRecord) -> String {
        let properties = event.properties
        var out =
            "{\"id\":\"\(event.id.uuidString)\",\"name\":\"\(event.name.rawValue)\",\"occurred_at\":\(event.occurredAt)"
        out += ",\"user_id\":\(JSONString.quoted(event.userID))"
        if let session = event.sessionID { out += ",\"session_id\":\"\(session.uuidString)\"" }
        out += ",\"catalog_version\":\(event.catalogVersion),\"pw_id\":\"\(properties.pwID.uuidString)\""
        out += ",\"source\":\(JSONString.quoted(properties.source))"
        if let value = properties.offeringID { out += ",\"offering_id\":\(JSONString.quoted(value))" }
        if let value = properties.placementID { out += ",\"placement_id\":\(JSONString.quoted(value))" }
        if let value = properties.product { out += ",\"product\":\(JSONString.quoted(value))" }
        if let value = properties.result { out += ",\"result\":\"\(value.rawValue)\"" }
        if let value = properties.via { out += ",\"via\":\"\(value.rawValue)\"" }
        if let value = properties.openS { out += ",\"open_s\":\(value)" }
        return out + "}"
    }

    /// Texts with every escape the writer knows, controls, quotes, backslashes and non-ASCII.
    static let texts = [
        "onboarding", "quote \" and \\ backslash", "tab\tnew\nline\rcr", "\u{08}\u{0C}\u{01}\u{1F}\u{7F}",
        "café", "cafe\u{301}", "日本語", "emoji 👩🏽‍💻", "\u{202E}rtl", "", " ",
    ]

    @Test func theByteWriterGivesTheReferenceLineAndTheValidatorReadsItBack() throws {
        var generator = SeededGenerator(seed: 7)
        let validator = EventValidator()
        var readBack = 0
        for index in 0..<2_000 {
            let text = { Self.texts[Int.random(in: 0..<Self.texts.count, using: &generator)] }
            let closed = index % 2 == 1
            let result = CloseResult.allCases[index % CloseResult.allCases.count]
            let event = EventRecord(
                id: UUID(), name: closed ? .paywallClosed : .paywallShown,
                occurredAt: Int64.random(in: 0...4_000_000_000_000, using: &generator),
                userID: "user " + text(), sessionID: index % 3 == 0 ? nil : UUID(),
                properties: EventProperties(
                    pwID: UUID(), source: "src " + text(), offeringID: index % 4 == 0 ? nil : text(),
                    placementID: index % 5 == 0 ? text() : nil,
                    product: closed && result == .purchased ? "product " + text() : nil,
                    result: closed ? result : nil, via: closed && result == .dismissed ? .closeButton : nil,
                    openS: closed ? Double(Int.random(in: 0...100_000, using: &generator)) / 8 : nil))
            let line = event.ndjsonLine
            #expect(line == Self.reference(event), "event \(index)")
            var bytes: [UInt8] = [0x41]
            event.appendNDJSON(to: &bytes)
            #expect(bytes == [0x41] + Array(line.utf8), "appends after what is there")
            // (Some random combinations break catalog rules, which is the validator's business, not the writer's.)
            if case .valid(let read) = validator.validate(line: line) {
                readBack += 1
                #expect(
                    read.id == event.id && read.userID == event.userID && read.properties == event.properties,
                    "event \(index) read back differently: \(line)")
            }
        }
        #expect(readBack >= 500, "only \(readBack) of 2,000 lines were valid events: the read-back check saw too few")
    }
}
