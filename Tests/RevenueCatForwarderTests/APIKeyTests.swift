import Foundation
import RevenueCatForwarder
import Testing

struct APIKeyTests {
    @Test(arguments: ["", "   ", "\n"])
    func emptyKeyCountsAsMissing(value: String) {
        #expect(throws: APIKeyError.missing(source: .environment, placeholder: false)) {
            try APIKey.resolve(configured: nil, environment: ["REVENUECAT_API_KEY": value])
        }
    }

    @Test func absentEverywhereIsMissingAndTheErrorSaysWhereTheKeyIsRead() {
        // Given neither configuration nor environment has a key
        // When resolving / Then the typed error names REVENUECAT_API_KEY and says nothing was lost
        do {
            _ = try APIKey.resolve(configured: nil, environment: [:])
            Issue.record("expected an error")
        } catch let error as APIKeyError {
            #expect(error == .missing(source: .environment, placeholder: false))
            #expect(error.description.contains("REVENUECAT_API_KEY"))
            #expect(error.description.contains("Nothing was sent"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [
        "YOUR_REVENUECAT_API_KEY_HERE", "test_YOUR_TEST_KEY_HERE", "appl_YOUR_API_KEY", "goog_YOUR_KEY",
        "appl_your_public_key_here", "<YOUR_API_KEY>", "rcb_…",
    ])
    func placeholdersCountAsMissing(value: String) {
        #expect(throws: APIKeyError.missing(source: .configuration, placeholder: true)) {
            try APIKey.resolve(configured: value, environment: ["REVENUECAT_API_KEY": "appl_realkey123"])
        }
    }

    @Test func configurationWinsOverEnvironment() throws {
        let resolved = try APIKey.resolve(
            configured: "goog_fromConfig1", environment: ["REVENUECAT_API_KEY": "appl_fromEnv123"])
        #expect(resolved.key == (try APIKey("goog_fromConfig1")))
        #expect(resolved.warning == nil)
    }

    @Test(arguments: ["appl_abc123defg", "goog_abc123defg", "amzn_abc123defg", "rcb_abc123defg", "test_abc123defg"])
    func knownPrefixesAreAcceptedWithoutWarning(value: String) throws {
        #expect(try APIKey.resolve(configured: nil, environment: ["REVENUECAT_API_KEY": value]).warning == nil)
    }

    @Test(arguments: ["test_ab", "appl_", "appl_abc123", "rcb_123456789", "short", "sk_12345"])
    func aKeyTooShortIsRefused(value: String) {
        // Given a value with fewer than 10 characters after its prefix (or in all, without a known prefix)
        // When resolving / Then it is refused, and the message says why without printing the value
        #expect(throws: APIKeyError.tooShort(source: .environment, minimum: 10)) {
            try APIKey.resolve(configured: nil, environment: ["REVENUECAT_API_KEY": value])
        }
        let message = APIKeyError.tooShort(source: .environment, minimum: 10).description
        #expect(message.contains("too short") && message.contains("REVENUECAT_API_KEY"))
        if value.count > 7 { #expect(!message.contains(value)) }
    }

    @Test(arguments: [
        ("appl_abc\ndefghijk", 9), ("appl_abcdefghijk\n", 17), (" appl_abcdefghijk", 1), ("appl_abc defghijk", 9),
        ("appl_abc\tdefghijk", 9), ("appl_abc\u{7F}defghijk", 9), ("appl_abc\u{0}defghijk", 9),
        ("appl_abcdéfghijk", 10), ("appl_abc\u{200B}defghijk", 9), ("appl_abc\rdefghijk", 9),
    ])
    func aKeyWithWhitespaceControlOrNonASCIIIsRefused(value: String, position: Int) {
        // Given a key holding a character an HTTP header cannot carry as it is
        // When resolving / Then it is refused with the character's position (the request would go unauthenticated)
        #expect(throws: APIKeyError.malformed(source: .environment, position: position)) {
            try APIKey.resolve(configured: nil, environment: ["REVENUECAT_API_KEY": value])
        }
        #expect(throws: APIKeyError.malformed(source: .configuration, position: position)) { try APIKey(value) }
    }

    @Test func otherShapesGetAWarningNotARefusal() throws {
        // Given a secret-key-shaped value
        let resolved = try APIKey.resolve(configured: nil, environment: ["REVENUECAT_API_KEY": "sk_live_abcdef123456"])
        // Then it resolves, with a warning that does not print the key
        let warning = try #require(resolved.warning)
        #expect(warning.description.contains("appl_"))
        #expect(!warning.description.contains("sk_live_abcdef123456"))
    }

    @Test func everyPrintedFormIsRedacted() throws {
        // Given a key
        let key = Fixtures.key
        // When it is printed every way Swift can print it
        var dumped = ""
        dump(key, to: &dumped)
        var dumpedResolution = ""
        var dumpedRequest = ""
        dump(
            Fixtures.configuration(endpoint: URL(string: "http://x")!).request(for: [], retryCount: 0),
            to: &dumpedRequest)
        dump(try APIKey.resolve(configured: Fixtures.secret, environment: [:]), to: &dumpedResolution)
        let forms = [
            dumpedRequest, "\(key)", String(describing: key), String(reflecting: key), dumped, dumpedResolution,
            "\(Fixtures.configuration(endpoint: URL(string: "http://x")!))",
            String(
                reflecting: Fixtures.configuration(endpoint: URL(string: "http://x")!).request(for: [], retryCount: 0)),
        ]
        // Then none contains the secret
        for form in forms { #expect(!form.contains(Fixtures.secret), "\(form)") }
        #expect("\(key)" == "appl_…(redacted)")
    }
}
