import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `forget` erases exactly the customers named: a short or common id (`42`, `_`) never takes another
/// customer's quarantined lines nor rewrites dead-letter reasons where its bytes are only part of
/// a longer word; and an id a command line cannot hold (a NUL character) is erased and exported
/// with `--user-json`. The built binary, a real store, RevenueCat's stand-in on 127.0.0.1.
@Suite(.serialized)
struct ForgetExactMatchTests {
    let cli = try! CommandRunner()

    func rows(_ db: String, _ sql: String) throws -> [String] {
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        return try connection.all(sql) { $0.string(at: 0) ?? "" }
    }

    @Test func aShortIDErasesNoOtherCustomersQuarantineNorTheirDeadLetterReasons() async throws {
        let scratch = TemporaryDirectory(prefix: "forget-exact")
        let db = scratch.path("events.sqlite")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        // RevenueCat's refusal holds 42 inside longer words only, and `_` inside `app_user_id`
        standIn.enqueue(.status(400, body: #"{"message":"HTTP 422 invalid app_user_id: 1042 items at 1792756142000"}"#))
        let environment = ["REVENUECAT_API_KEY": "appl_ForgetExactKey12345"]
        let good = try scratch.write(
            "good.ndjson", ForgetCommandTests.presentation(1, user: "demo_user_00042").joined(separator: "\n") + "\n")
        let bad = try scratch.write(
            "bad.ndjson",
            [
                #"{"name":"paywall_shown","user_id":"demo_user_00001","occurred_at":1792756142000}"#,
                #"{"name":"paywall_closed","user_id":"demo_user_00002","note":"total 1042 items"}"#,
                #"{"user_id":"demo_user_00003","name": broken"#,
                #"{"user_id":"demo_user_00004","price":42.5,"x":"_x_"}"#,
            ].joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", good, "--db", db], environment: environment).status == 0)
        #expect(
            try await cli.run(
                ["forward", "--endpoint", standIn.baseURL.absoluteString, "--db", db], environment: environment
            )
            .status == 65)
        #expect(try await cli.run(["import", bad, "--db", db]).status == 65)
        let quarantine = try rows(db, "SELECT payload FROM quarantine ORDER BY seq")
        let reasons = try rows(db, "SELECT reason FROM dead_letters ORDER BY rowid")
        #expect(quarantine.count == 4 && reasons.count == 1)
        for id in ["42", "_", "user", "demo", "00042", "app"] {
            let forgot = try await cli.run(["forget", "--user", id, "--db", db])
            #expect(forgot.status == 0, "\(forgot.stderr)")
            #expect(forgot.stdout.contains("no stored data matched"), "\(id): \(forgot.stdout)")
            #expect(try rows(db, "SELECT payload FROM quarantine ORDER BY seq") == quarantine, "\(id)")
            let after = try rows(db, "SELECT reason FROM dead_letters ORDER BY rowid")
            #expect(after == reasons, "\(id): \(after) was \(reasons)")
        }
        // A customer whose id is a whole token goes, with their quarantined line only
        let forgot = try await cli.run(["forget", "--user", "demo_user_00003", "--db", db])
        #expect(forgot.stdout.contains("  quarantine              1\n"), "\(forgot.stdout)")
        #expect(
            try rows(db, "SELECT payload FROM quarantine ORDER BY seq") == quarantine.filter { !$0.contains("00003") })
    }

    @Test func aDeadLetterReasonNamingTheIDAsAWordIsRedactedThere() async throws {
        let scratch = TemporaryDirectory(prefix: "forget-exact")
        let db = scratch.path("events.sqlite")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(
            .status(400, body: #"{"message":"HTTP 422 invalid app_user_id 42 (\"42\"), 1042 items"}"#))
        let environment = ["REVENUECAT_API_KEY": "appl_ForgetExactKey12345"]
        let good = try scratch.write(
            "good.ndjson", ForgetCommandTests.presentation(1, user: "someone-else").joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", good, "--db", db], environment: environment).status == 0)
        _ = try await cli.run(
            ["forward", "--endpoint", standIn.baseURL.absoluteString, "--db", db], environment: environment)
        let forgot = try await cli.run(["forget", "--user", "42", "--db", db])
        #expect(forgot.stdout.contains("  dead_letters (reasons redacted) 1\n"), "\(forgot.stdout)")
        let reasons = try rows(db, "SELECT reason FROM dead_letters")
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("HTTP 422 invalid app_user_id [a forgotten customer]") == true, "\(reasons)")
        #expect(reasons.first?.contains("1042 items") == true, "\(reasons)")
    }

    @Test func aUserIDHoldingAControlCharacterIsQuarantinedWithAClearReason() async throws {
        let scratch = TemporaryDirectory(prefix: "forget-exact")
        let db = scratch.path("events.sqlite")
        // NUL, ESC and a tab escaped; DEL and NEL (U+0085) raw, as UTF-8 allows them in a JSON string
        let users = [#"nul\u0000id"#, #"esc\u001b[31mid"#, #"tab\tid"#, "del\u{7F}id", "nel\u{85}id"]
        var lines: [String] = []
        for (index, user) in users.enumerated() {
            lines += ForgetCommandTests.presentation(index + 1, user: user).prefix(1)
        }
        lines += ForgetCommandTests.presentation(9, user: "kept-customer")
        let input = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let imported = try await cli.run(["import", input, "--db", db])
        #expect(imported.status == 65, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("imported 3, duplicates 0, conflicts 0, quarantined 5"), "\(imported.stdout)")
        #expect(try rows(db, "SELECT DISTINCT user_id FROM events") == ["kept-customer"])
        let reasons = try rows(db, "SELECT reasons FROM quarantine ORDER BY seq")
        #expect(reasons.count == 5)
        for (reason, code) in zip(reasons, ["U+0000", "U+001B", "U+0009", "U+007F", "U+0085"]) {
            #expect(reason.contains("must not hold control characters"), "\(reason)")
            #expect(reason.contains("holds \(code)"), "\(reason)")
        }
    }
}
