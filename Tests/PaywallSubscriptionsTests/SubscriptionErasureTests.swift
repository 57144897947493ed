import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import PaywallTestSupport
import Testing

/// `forget --user`'s reach into the subscription events (``SubscriptionErasure`` as a participant of
/// the store's erasure) and the suppression of a forgotten customer's later webhooks, on real files.
@Suite struct SubscriptionErasureTests {
    static let receivedAt: Int64 = 1_765_200_000_000

    final class Fixture {
        let folder = TemporaryDirectory(prefix: "subscription-erasure")
        let connection: Connection
        let subscriptions: SubscriptionEventStore
        let store: EventStore
        init() throws {
            connection = try SubscriptionSchema.open(path: folder.path("events.sqlite"))
            subscriptions = SubscriptionEventStore(connection: connection)
            store = EventStore(connection: connection, now: .system)
        }

        func ingest(_ bodies: [String], at time: Int64 = receivedAt) throws -> [SubscriptionIngestOutcome] {
            try subscriptions.ingest(bodies.map(WebhookBodies.data), receivedAtMs: time)
        }

        func forget(_ ids: [String]) throws -> ErasureReport {
            try UserErasure(store: store, participants: [SubscriptionErasure()]).forget(ids)
        }

        func ids() throws -> [String] {
            try connection.all("SELECT id FROM subscription_events ORDER BY rowid") { $0.string(at: 0) ?? "" }
        }

        func count(_ sql: String) throws -> Int64 { try connection.scalar(sql)?.int64 ?? -1 }

        /// The files of the store's folder (database, -wal, -shm) holding `needle`'s bytes.
        func filesHold(_ needle: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).map(folder.path).filter { file in
                try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(needle.utf8)) != nil
            }
        }
    }

    @Test func forgettingAnAliasErasesEveryEventKeyedByItRawBodiesIncludedAndNoFileHoldsIt() throws {
        let fixture = try Fixture()
        let all = [
            WebhookBodies.trialStart, WebhookBodies.trialConversion, WebhookBodies.refund, WebhookBodies.nonRenewing,
        ]
        #expect(try fixture.ingest(all) == Array(repeating: .stored, count: 4))
        // A quarantined body naming the customer goes too (the store's quarantine rule).
        let bad = WebhookBodies.body(id: "BAD-1", #""app_user_id":"$RCAnonymousID:aa11bb22cc33","price":"free""#)
        #expect(try fixture.ingest([bad]).count == 1)
        let anonymous = "$RCAnonymousID:aa11bb22cc33"
        #expect(try !fixture.filesHold(anonymous).isEmpty)

        let report = try fixture.forget([anonymous])

        #expect(report.rows(in: "subscription_events") == 2)
        #expect(report.rows(in: "subscription_customer_keys") == 4)
        #expect(report.rows(in: "quarantine") == 1)
        #expect(report.suppressionsAdded == 1)
        #expect(try fixture.ids() == ["5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03", "5C2B8A4E-0004-4C6B-9D0E-1A2B3C4D5E04"])
        #expect(try fixture.count("SELECT count(*) FROM subscription_customer_keys") == 2)
        #expect(try fixture.filesHold(anonymous).isEmpty)
        // The customer's other id was only in the erased bodies: gone as well.
        #expect(try fixture.filesHold("cust_trial_1").isEmpty)
        #expect(try !fixture.filesHold("cust_paid_2").isEmpty)
    }

    @Test func aTransferNamingTheCustomerOnlyInTransferredFromIsErased() throws {
        let fixture = try Fixture()
        #expect(try fixture.ingest([WebhookBodies.farFutureTransfer, WebhookBodies.refund]) == [.stored, .stored])
        let report = try fixture.forget(["cust_old_5"])
        #expect(report.rows(in: "subscription_events") == 1)
        #expect(try fixture.ids() == ["5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03"])
        #expect(try fixture.filesHold("cust_old_5").isEmpty)
        #expect(try fixture.filesHold("cust_new_6").isEmpty)
    }

    @Test func anIDInsideALongerValueIsNotTheCustomer() throws {
        let fixture = try Fixture()
        #expect(try fixture.ingest([WebhookBodies.refund]) == [.stored])
        // "cust_paid" is a prefix of the stored customer "cust_paid_2": nothing of theirs is erased.
        let report = try fixture.forget(["cust_paid"])
        #expect(report.rows(in: "subscription_events") == 0)
        #expect(try fixture.ids() == ["5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03"])
    }

    @Test func aForgottenCustomersLaterWebhooksAreSuppressedAndCountedUnderAnyOfTheirKeys() throws {
        let fixture = try Fixture()
        _ = try fixture.forget(["cust_trial_1", "cust_old_5"])
        let later = [
            WebhookBodies.trialStart,  // app_user_id
            WebhookBodies.body(id: "LATER-2", #""app_user_id":"someone_else","aliases":["cust_trial_1"]"#),  // an alias
            WebhookBodies.body(id: "LATER-3", #""original_app_user_id":"cust_trial_1""#),
            WebhookBodies.farFutureTransfer,  // transferred_from
            WebhookBodies.body(id: "LATER-4", #""app_user_id":"cust_trial_1","price":"oops""#),  // would be quarantined
            WebhookBodies.body(
                id: "LATER-5", #""app_user_id":"x","subscriber_attributes":{"$id":{"value":"cust_old_5"}}"#),
            WebhookBodies.refund,  // another customer
        ]
        #expect(
            try fixture.ingest(later) == [
                .suppressed, .suppressed, .suppressed, .suppressed, .suppressed, .suppressed, .stored,
            ])
        #expect(try fixture.count("SELECT coalesce(sum(count), 0) FROM suppressed_events") == 6)
        #expect(try fixture.count("SELECT count(*) FROM quarantine") == 0)
        #expect(try fixture.ids() == ["5C2B8A4E-0003-4C6B-9D0E-1A2B3C4D5E03"])
        _ = try fixture.connection.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try fixture.filesHold("cust_trial_1").isEmpty)
        #expect(try fixture.filesHold("cust_old_5").isEmpty)
    }

    @Test func erasingTheNewestEventsNeverHandsTheirRowidsToLaterEvents() throws {
        let fixture = try Fixture()
        _ = try fixture.ingest([WebhookBodies.refund, WebhookBodies.trialStart, WebhookBodies.trialConversion])
        let top = try fixture.count("SELECT max(rowid) FROM subscription_events")
        _ = try fixture.forget(["cust_trial_1"])
        #expect(try fixture.count("SELECT max(rowid) FROM subscription_events") < top)
        #expect(try fixture.ingest([WebhookBodies.nonRenewing, WebhookBodies.sandboxPurchase]) == [.stored, .stored])
        let rowids = try fixture.connection.all(
            "SELECT rowid FROM subscription_events WHERE id IN ('5C2B8A4E-0004-4C6B-9D0E-1A2B3C4D5E04', '5C2B8A4E-0006-4C6B-9D0E-1A2B3C4D5E06') ORDER BY rowid"
        ) { $0.int64(at: 0) }
        #expect(rowids.count == 2 && rowids.allSatisfy { $0 > top })
        #expect(try fixture.count("SELECT count(*) FROM meta WHERE key = 'subscriptions.rowid_floor'") == 0)
    }
}
