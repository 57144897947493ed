import Foundation
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import PaywallTestSupport
import Testing

/// `SubscriptionEventStore.ingest` on a real SQLite file: what each documented kind of webhook body
/// becomes in `subscription_events` and `subscription_customer_keys`, what is quarantined and why,
/// and that a redelivery is stored once.
@Suite struct SubscriptionIngestTests {
    static let receivedAt: Int64 = 1_765_200_000_000

    /// A fresh store file with the subscription tables.
    final class Store {
        let directory = TemporaryDirectory(prefix: "subscription-ingest")
        let connection: Connection
        let subscriptions: SubscriptionEventStore
        init() throws {
            connection = try SubscriptionSchema.open(path: directory.path("events.sqlite"))
            subscriptions = SubscriptionEventStore(connection: connection)
        }

        func ingest(_ bodies: [String], at time: Int64 = receivedAt) throws -> [SubscriptionIngestOutcome] {
            try subscriptions.ingest(bodies.map(WebhookBodies.data), receivedAtMs: time)
        }

        /// The stored row of `id`, every column by name (integers, texts, blobs, or `.null`).
        func row(_ id: String) throws -> [String: SQLValue] {
            var out: [String: SQLValue] = [:]
            try connection.withDatabase { db in
                try db.forEachRow("SELECT * FROM subscription_events WHERE id = ?1", [.text(id)]) { row in
                    for index in 0..<row.count { out[row.name(at: index)] = row.value(at: index) }
                    return false
                }
            }
            return out
        }

        /// The customer keys of the event `id`, sorted.
        func keys(_ id: String) throws -> [String] {
            try connection.all(
                """
                SELECT customer_key FROM subscription_customer_keys
                WHERE event_rowid = (SELECT rowid FROM subscription_events WHERE id = ?1) ORDER BY customer_key
                """, [.text(id)]
            ) { $0.string(at: 0) ?? "" }
        }

        func count(_ sql: String) throws -> Int64 { try connection.scalar(sql)?.int64 ?? -1 }
    }

    @Test func theMigrationCreatesExactlyTheTwoTablesWithTheirColumnsAndIsRecorded() throws {
        let store = try Store()
        let columns = try store.connection.all("SELECT name FROM pragma_table_info('subscription_events')") {
            $0.string(at: 0) ?? ""
        }
        #expect(
            columns == [
                "id", "type", "environment", "event_timestamp_ms", "app_user_id", "original_app_user_id", "product_id",
                "period_type", "purchased_at_ms", "expiration_at_ms", "store", "transaction_id",
                "original_transaction_id",
                "is_trial_conversion", "presented_offering_id", "price_micros", "proceeds_micros", "currency",
                "received_at_ms", "raw_body",
            ])
        let keyColumns = try store.connection.all("SELECT name FROM pragma_table_info('subscription_customer_keys')") {
            $0.string(at: 0) ?? ""
        }
        #expect(keyColumns == ["customer_key", "event_rowid"])
        let indexes = try store.connection.all(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name LIKE 'subscription%' AND sql IS NOT NULL ORDER BY name"
        ) { $0.string(at: 0) ?? "" }
        #expect(indexes == ["subscription_customer_keys_by_event", "subscription_events_by_transaction"])
        #expect(
            try store.count("SELECT count(*) FROM schema_migrations WHERE identifier = 'subscriptions/events'") == 1)
        // Opening again applies nothing twice.
        _ = try SubscriptionSchema.open(path: store.directory.path("events.sqlite"))
        #expect(try store.count("SELECT count(*) FROM schema_migrations WHERE identifier LIKE 'subscriptions/%'") == 1)
    }

    @Test func aTrialStartIsStoredWithItsColumnsAndEveryCustomerKeyOnce() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.trialStart]) == [.stored])
        let row = try store.row("5C2B8A4E-0001-4C6B-9D0E-1A2B3C4D5E01")
        #expect(row["type"] == .text("INITIAL_PURCHASE"))
        #expect(row["environment"] == .text("PRODUCTION"))
        #expect(row["event_timestamp_ms"] == .integer(1_764_403_200_000))
        #expect(row["app_user_id"] == .text("cust_trial_1"))
        #expect(row["original_app_user_id"] == .text("$RCAnonymousID:aa11bb22cc33"))
        #expect(row["product_id"] == .text("pro.monthly.trial"))
        #expect(row["period_type"] == .text("TRIAL"))
        #expect(row["purchased_at_ms"] == .integer(1_764_403_190_000))
        #expect(row["expiration_at_ms"] == .integer(1_765_008_000_000))
        #expect(row["store"] == .text("APP_STORE"))
        #expect(row["transaction_id"] == .text("300000001"))
        #expect(row["original_transaction_id"] == .text("300000001"))
        #expect(row["is_trial_conversion"] == .null)
        #expect(row["presented_offering_id"] == .text("onboarding_trial"))
        #expect(row["price_micros"] == .integer(0))
        #expect(row["proceeds_micros"] == .integer(0))
        #expect(row["currency"] == .text("USD"))
        #expect(row["received_at_ms"] == .integer(Self.receivedAt))
        #expect(row["raw_body"] == .blob(WebhookBodies.data(WebhookBodies.trialStart)))
        // The alias repeating app_user_id and original_app_user_id adds no second row.
        #expect(
            try store.keys("5C2B8A4E-0001-4C6B-9D0E-1A2B3C4D5E01") == ["$RCAnonymousID:aa11bb22cc33", "cust_trial_1"])
    }

    @Test func aTrialConversionKeepsItsFlagAndItsProceedsAfterTaxAndCommission() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.trialConversion]) == [.stored])
        let row = try store.row("5C2B8A4E-0002-4C6B-9D0E-1A2B3C4D5E02")
        #expect(row["type"] == .text("RENEWAL"))
        #expect(row["is_trial_conversion"] == .integer(1))
        #expect(row["price_micros"] == .integer(9_990_000))
        // 9.99 × (1 − 0.1597 − 0.15) = 6.896097 exactly.
        #expect(row["proceeds_micros"] == .integer(6_896_097))
        #expect(row["currency"] == .text("EUR"))
        #expect(row["original_transaction_id"] == .text("300000001"))
    }

    @Test func aRefundIsNegativeAndItsProceedsUseTheOlderTakehomePercentage() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.refund]) == [.stored])
        let row = try store.row("5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03")
        #expect(row["type"] == .text("CANCELLATION"))
        #expect(row["price_micros"] == .integer(-4_990_000))
        #expect(row["proceeds_micros"] == .integer(-3_493_000))
        #expect(row["store"] == .text("PLAY_STORE"))
        #expect(try store.keys("5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03") == ["cust_paid_2"])
    }

    @Test func aNonRenewingPurchaseWithoutExpirationOrPercentagesKeepsTheWholePriceAsProceeds() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.nonRenewing]) == [.stored])
        let row = try store.row("5C2B8A4E-0004-4C6B-9D0E-1A2B3C4D5E04")
        #expect(row["type"] == .text("NON_RENEWING_PURCHASE"))
        #expect(row["expiration_at_ms"] == .null)
        #expect(row["presented_offering_id"] == .null)
        #expect(row["price_micros"] == .integer(19_990_000))
        #expect(row["proceeds_micros"] == .integer(19_990_000))
    }

    @Test func aTestEventWithAlmostNoFieldsIsStoredWithTheRestAbsent() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.testEvent]) == [.stored])
        let row = try store.row("5C2B8A4E-0005-4C6B-9D0E-1A2B3C4D5E05")
        #expect(row["type"] == .text("TEST"))
        #expect(row["event_timestamp_ms"] == .integer(1_764_700_000_000))
        for absent in [
            "environment", "product_id", "period_type", "purchased_at_ms", "expiration_at_ms", "store",
            "transaction_id",
            "original_transaction_id", "is_trial_conversion", "presented_offering_id", "price_micros",
            "proceeds_micros",
            "currency", "original_app_user_id",
        ] {
            #expect(row[absent] == .null, "\(absent) should be NULL for a TEST event")
        }
    }

    @Test func aSandboxPurchaseIsStoredWithItsEnvironment() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.sandboxPurchase]) == [.stored])
        let row = try store.row("5C2B8A4E-0006-4C6B-9D0E-1A2B3C4D5E06")
        #expect(row["environment"] == .text("SANDBOX"))
        #expect(row["price_micros"] == .integer(4_990_000))
        #expect(row["proceeds_micros"] == .integer(3_493_000))
        #expect(
            try store.count(
                "SELECT count(*) FROM subscription_events WHERE environment = 'SANDBOX' OR type = 'TEST'") == 1)
    }

    @Test func aTransferStampedInTheYear4466IsStoredAsSentWithoutCustomerKeys() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.farFutureTransfer]) == [.stored])
        let row = try store.row("5C2B8A4E-0007-4C6B-9D0E-1A2B3C4D5E07")
        #expect(row["type"] == .text("TRANSFER"))
        #expect(row["event_timestamp_ms"] == .integer(78_789_789_798_798))
        #expect(row["app_user_id"] == .null)
        #expect(try store.keys("5C2B8A4E-0007-4C6B-9D0E-1A2B3C4D5E07") == [])
    }

    @Test func unknownTypesAndUnknownFieldsAreKeptByteForByteNeverRefused() throws {
        let store = try Store()
        #expect(try store.ingest([WebhookBodies.unknownType, WebhookBodies.extraFields]) == [.stored, .stored])
        let unknown = try store.row("5C2B8A4E-0008-4C6B-9D0E-1A2B3C4D5E08")
        #expect(unknown["type"] == .text("SOMETHING_INVENTED_LATER"))
        #expect(unknown["raw_body"] == .blob(WebhookBodies.data(WebhookBodies.unknownType)))
        let extra = try store.row("5C2B8A4E-0009-4C6B-9D0E-1A2B3C4D5E09")
        #expect(extra["is_trial_conversion"] == .null)
        #expect(extra["price_micros"] == .null)
        #expect(extra["proceeds_micros"] == .null)
        #expect(extra["raw_body"] == .blob(WebhookBodies.data(WebhookBodies.extraFields)))
        #expect(try store.count("SELECT count(*) FROM quarantine") == 0)
    }

    @Test(arguments: [
        (#""price":"4.99""#, "event.price is a string, expected a number"),
        (#""is_trial_conversion":"true""#, "event.is_trial_conversion is a string, expected true or false"),
        (
            #""event_timestamp_ms":1764403200000.5"#,
            "event.event_timestamp_ms is a number that is not a whole number of at most 64 bits, expected a whole number"
        ),
        (#""aliases":"cust_1""#, "event.aliases is a string, expected an array of strings"),
        (#""aliases":["a",7]"#, "event.aliases is an array holding a non-string, expected an array of strings"),
        (#""app_user_id":42"#, "event.app_user_id is a number, expected a string"),
        (#""type":{"name":"RENEWAL"}"#, "event.type is an object, expected a string"),
        (#""price":1e400"#, "event.price is out of range"),
        (#""price":1,"tax_percentage":-1e400"#, "event.tax_percentage is out of range"),
        (
            #""price":9000000000000,"takehome_percentage":2"#,
            "the proceeds of event.price after its percentages are out of range"
        ),
        (#""id":5"#, "event.id is a number, expected a string"),
        (#""id":"""#, "event.id is empty"),
    ])
    func aKnownFieldOfTheWrongTypeIsQuarantinedWithAReasonNamingIt(field: String, reason: String) throws {
        let store = try Store()
        let body = WebhookBodies.body(id: "WRONG-TYPE-1", field)
        #expect(try store.ingest([body]) == [.quarantined(reasons: [reason])])
        #expect(try store.count("SELECT count(*) FROM subscription_events") == 0)
        let quarantined = try store.connection.all("SELECT reasons, payload, origin, quarantined_at FROM quarantine") {
            [$0.string(at: 0) ?? "", $0.string(at: 1) ?? "", $0.string(at: 2) ?? "", String($0.int64(at: 3))]
        }
        #expect(quarantined == [[reason, body, SubscriptionEventStore.webhookOrigin, String(Self.receivedAt)]])
    }

    @Test func bodiesThatCanNeverBeEventsAreQuarantinedWithTheirReasons() throws {
        let store = try Store()
        let bodies = [
            "this is not json",
            #"{"api_version":"1.0","event":{"id":"5C2B"#,
            #"["api_version","1.0"]"#,
            #"{"api_version":"1.0"}"#,
            #"{"api_version":"1.0","event":[{"id":"X"}]}"#,
            #"{"api_version":"1.0","event":{"type":"RENEWAL","app_user_id":"u"}}"#,
            #"{"api_version":"1.0","event":{"id":1234,"type":"RENEWAL"}}"#,
            #"{"api_version":"1.0","event":{"id":null}}"#,
            #"{"api_version":1,"event":{"id":"OK-ID"}}"#,
        ]
        let outcomes = try store.ingest(bodies)
        let reasons = outcomes.map { outcome -> [String] in
            if case .quarantined(let reasons) = outcome { reasons } else { ["not quarantined: \(outcome)"] }
        }
        #expect(reasons[0] == ["the body is not JSON (unexpected character at byte 0)"])
        #expect(reasons[1] == ["the body is not JSON (a string without its closing quote at byte 40)"])
        #expect(reasons[2] == [#"the body is an array, not a JSON object with an "event" object"#])
        #expect(reasons[3] == [#"the body has no "event" object"#])
        #expect(reasons[4] == [#""event" is an array, expected an object"#])
        #expect(reasons[5] == [#"the event has no "id" (event.id)"#])
        #expect(reasons[6] == ["event.id is a number, expected a string"])
        #expect(reasons[7] == ["event.id is null, expected a string"])
        #expect(reasons[8] == ["api_version is a number, expected a string"])
        #expect(try store.count("SELECT count(*) FROM subscription_events") == 0)
        #expect(try store.count("SELECT count(*) FROM quarantine") == Int64(bodies.count))
        #expect(
            try store.count(
                "SELECT count(*) FROM quarantine WHERE origin = '\(SubscriptionEventStore.webhookOrigin)'")
                == Int64(bodies.count))
    }

    @Test func theSameBadBodyTwiceIsQuarantinedOnce() throws {
        let store = try Store()
        let bad = "{not json"
        #expect(try store.ingest([bad, bad]).count == 2)
        #expect(
            try store.ingest([bad], at: Self.receivedAt + 1) == [
                .quarantined(reasons: ["the body is not JSON (expected a member name at byte 1)"])
            ])
        #expect(try store.count("SELECT count(*) FROM quarantine") == 1)
    }

    @Test func aRedeliveredEventIsADuplicateStoredOnceWithinABatchAndAcrossCalls() throws {
        let store = try Store()
        #expect(
            try store.ingest([WebhookBodies.trialStart, WebhookBodies.refund, WebhookBodies.trialStart])
                == [.stored, .stored, .duplicate])
        // RevenueCat's retry may differ in whitespace; the id decides, the first body is kept.
        let retried = WebhookBodies.trialStart.replacingOccurrences(of: "\n", with: " ")
        #expect(try store.ingest([retried], at: Self.receivedAt + 60_000) == [.duplicate])
        #expect(try store.count("SELECT count(*) FROM subscription_events") == 2)
        #expect(try store.count("SELECT count(*) FROM subscription_customer_keys") == 3)
        let row = try store.row("5C2B8A4E-0001-4C6B-9D0E-1A2B3C4D5E01")
        #expect(row["received_at_ms"] == .integer(Self.receivedAt))
        #expect(row["raw_body"] == .blob(WebhookBodies.data(WebhookBodies.trialStart)))
    }

    @Test func laterEventsGetLargerRowidsAndAreVisibleToAnotherConnectionOnReturn() throws {
        let store = try Store()
        _ = try store.ingest([WebhookBodies.trialStart])
        _ = try store.ingest([WebhookBodies.trialConversion, WebhookBodies.nonRenewing])
        let reader = try Connection(path: store.directory.path("events.sqlite"))
        let ids = try reader.all("SELECT id FROM subscription_events ORDER BY rowid") { $0.string(at: 0) ?? "" }
        #expect(
            ids == [
                "5C2B8A4E-0001-4C6B-9D0E-1A2B3C4D5E01", "5C2B8A4E-0002-4C6B-9D0E-1A2B3C4D5E02",
                "5C2B8A4E-0004-4C6B-9D0E-1A2B3C4D5E04",
            ])
    }
}
