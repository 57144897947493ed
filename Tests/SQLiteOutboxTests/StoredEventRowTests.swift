import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// A stored row whose name (or close result) this build's catalog does not define is an error that
/// stops the read, never some other event in its place.
struct StoredEventRowTests {
    let directory = TemporaryDirectory()

    func store(_ count: Int) throws -> EventStore {
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(count))
        return store
    }

    @Test func theOutboxRefusesARowWhoseNameWasChangedByHand() throws {
        // Given three pending impressions, the second renamed with raw SQL
        let store = try store(3)
        let renamed = impressions(3)[1].id
        try store.connection.run(
            "UPDATE events SET name = 'paywall_teleported' WHERE id = ?1", [.text(renamed.uuidString)])
        // When the outbox reads what is due
        let error = try #require(throws: StoredEventError.self) {
            try SQLiteOutbox(store: store).due(now: .max, limit: 10)
        }
        // Then the error names the row, the column and the value, and nothing is read as an impression
        #expect(error.id == renamed && error.column == "name" && error.value == "paywall_teleported")
        #expect(error.description.contains(renamed.uuidString))
        #expect(error.description.contains("'paywall_teleported' in its name column"))
        // And once the row holds a known name again, all three are due as before
        try store.connection.run("UPDATE events SET name = 'paywall_shown' WHERE id = ?1", [.text(renamed.uuidString)])
        #expect(
            try SQLiteOutbox(store: store).due(now: .max, limit: 10).map(\.event.id).sorted()
                == impressions(3).map(\.id).sorted())
    }

    @Test func theUploadQueueRefusesAnUnknownNameOrCloseResult() throws {
        // Given stored impressions, one renamed
        let store = try store(4)
        let queue = SQLiteUploadQueue(store: store)
        let target = impressions(4)[2].id
        try store.connection.run("UPDATE events SET name = 'shown_v2' WHERE id = ?1", [.text(target.uuidString)])
        // Then reading the events after the cursor stops with the row's error
        let renamed = try #require(throws: StoredEventError.self) { try queue.events(after: 0, limit: 10) }
        #expect(renamed.id == target && renamed.column == "name" && renamed.value == "shown_v2")
        // And a close result the catalog does not define is refused the same way
        try store.connection.run(
            "UPDATE events SET name = 'paywall_closed', result = 'refunded' WHERE id = ?1", [.text(target.uuidString)])
        let result = try #require(throws: StoredEventError.self) { try queue.events(after: 0, limit: 10) }
        #expect(result.column == "result" && result.value == "refunded")
        // And the cursor did not move
        #expect(try queue.uploadCursor() == 0)
    }
}
