import Foundation
import PaywallCore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

struct WireFormatGoldenTests {
    /// A file of this target's `Golden/` folder (`UPDATE_GOLDEN=1 swift test` rewrites them).
    static func golden(_ name: String) -> URL { Golden.folder(beside: #filePath).appendingPathComponent(name) }

    /// Full, minimal-with-escapes and offering-only impressions, in that order.
    static func threeImpressions() -> [EventRecord] {
        var minimal = Fixtures.impression(1, full: false)
        minimal.userID = "q\"b\\s\nn\u{1}é"
        var offeringOnly = Fixtures.impression(2, full: false)
        offeringOnly.properties.offeringID = "annual_offer"
        return [Fixtures.impression(0), minimal, offeringOnly]
    }

    @Test func bodyMatchesGoldenFileByteForByte() throws {
        // Given three impressions covering every optional key being present and absent
        let events = Self.threeImpressions()
        // When the body is encoded
        let body = ImpressionWireFormat.body(for: events)
        // Then it equals the golden bytes: stable key order, absent keys omitted, escapes per RFC 8259
        let mismatch = try Golden.mismatch(
            String(decoding: body, as: UTF8.self), golden: Self.golden("body-three-impressions.json"))
        #expect(mismatch == nil, "\(mismatch ?? "")")
        #expect(!String(decoding: body, as: UTF8.self).contains("null"))
    }

    @Test func headersMatchGoldenFile() throws {
        // Given a configuration with a fixed platform and version
        let configuration = Fixtures.configuration(endpoint: URL(string: "http://127.0.0.1:8080/")!)
        // When the request for a batch on its fourth attempt is built
        let request = configuration.request(for: Self.threeImpressions(), retryCount: 3)
        // Then method, URL and headers are exactly the golden ones
        let text =
            (["\(request.method) \(request.url.absoluteString)"] + request.headers.map { "\($0.name): \($0.value)" })
            .joined(separator: "\n") + "\n"
        let mismatch = try Golden.mismatch(text, golden: Self.golden("request-headers.txt"))
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test(arguments: [
        ("appl_TESTsecretKEY0123456789abcd", false, "false"),
        ("appl_TESTsecretKEY0123456789abcd", true, "true"),
        ("test_TESTsecretKEY0123456789abcd", false, "true"),
        ("goog_TESTsecretKEY0123456789abcd", false, "false"),
    ])
    func everyRequestSaysWhetherItIsSandbox(key: String, sandbox: Bool, expected: String) throws {
        // Given a key and a sandbox setting
        let configuration = ForwarderConfiguration(apiKey: try APIKey(key), sandbox: sandbox)
        // When a request is built
        let request = configuration.request(for: Self.threeImpressions(), retryCount: 0)
        // Then X-Is-Sandbox is true for Test Store keys and sandbox configurations, false otherwise
        #expect(request.headers.filter { $0.name == "X-Is-Sandbox" }.map(\.value) == [expected])
    }

    @Test func goldenBodyAndDocumentExamplePassTheStandInsChecks() throws {
        // Given the golden body and the example body of RevenueCat's events API documentation
        let golden = try Data(contentsOf: Self.golden("body-three-impressions.json"))
        let example = Data(
            """
            {"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,
             "type":"custom_paywall_impression","app_user_id":"user_42",
             "app_session_id":"0C8E2B6A-95C7-4E0B-8D61-3F4E2A1B9C70","timestamp":1764400000000,
             "paywall_id":"onboarding","offering_id":"default",
             "presented_offering_context":{"placement_identifier":"onboarding"}}]}
            """.utf8)
        // Then the independent validator finds nothing wrong with either
        #expect(RevenueCatRequestValidator.violations(inBody: golden) == [])
        #expect(RevenueCatRequestValidator.violations(inBody: example) == [])
    }

    @Test(arguments: [
        (
            #"{"events":[{"id":"5e0a4c1e-2b8f-4f7a-9c51-0b5d0d6a8e11","version":1,"type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000000}]}"#,
            "uppercase"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000000,"offering_id":null}]}"#,
            "null"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":"1","type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000000}]}"#,
            "version"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"paywall_impression","app_user_id":"u","timestamp":1764400000000}]}"#,
            "type"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"custom_paywall_impression","appUserId":"u","timestamp":1764400000000}]}"#,
            "unknown key"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000.5}]}"#,
            "timestamp"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000000,"presented_offering_context":{}}]}"#,
            "empty"
        ),
        (#"{"events":[]}"#, "1…50"),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","version":1,"type":"custom_paywall_impression","app_user_id":"u","timestamp":1764400000000}],"extra":1}"#,
            "expected only events"
        ),
        (
            #"{"events":[{"id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11","id":"5E0A4C1E-2B8F-4F7A-9C51-0B5D0D6A8E11"}]}"#,
            "not JSON"
        ),
    ])
    func standInValidatorReportsEachDefect(body: String, expectedFragment: String) {
        // Given a body with one defect / When it is checked
        let problems = RevenueCatRequestValidator.violations(inBody: Data(body.utf8))
        // Then a violation names it
        #expect(problems.contains { $0.contains(expectedFragment) }, "\(problems)")
    }

    @Test func batchOfFiftyOneIsReportedTooLarge() {
        let body = ImpressionWireFormat.body(for: Fixtures.impressions(51))
        #expect(RevenueCatRequestValidator.violations(inBody: body).contains { $0.contains("51 entries") })
    }
}
