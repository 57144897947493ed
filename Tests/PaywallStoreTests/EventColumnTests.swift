import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// The one column list of `events` the live statements are built from, held to the table the
/// migrations make and to the wire names.
struct EventColumnTests {
    @Test func theColumnListIsTheMigratedEventsTable() throws {
        // Given a store created and migrated on a real file
        let directory = TemporaryDirectory()
        let connection = try Schema.open(path: directory.path("store.sqlite"))
        // When its events table is described by SQLite
        let table = try connection.all("SELECT name FROM pragma_table_info('events') ORDER BY cid") {
            $0.string(at: 0) ?? ""
        }
        // Then the live list names the same columns in the same order (rawValue = position)
        #expect(EventColumn.allCases.map(\.columnName) == table)
        #expect(EventColumn.allCases.map(\.rawValue) == Array(table.indices))
        #expect(EventColumn.record == Array(EventColumn.allCases.dropLast()))
        #expect(EventColumn.list([.id, .pwID], prefix: "e.") == "e.id, e.pw_id")
    }

    @Test func eachColumnIsNamedAsItsNDJSONField() {
        // The envelope fields, then the generated catalog properties, then seq
        let wire = EnvelopeField.allCases.map(\.rawValue) + PropertyName.allCases.map(\.rawValue)
        #expect(EventColumn.record.map(\.columnName) == wire)
        #expect(EventColumn.seq.columnName == "seq")
    }

    @Test func anEventWrittenAndReadBackThroughTheListIsUnchanged() throws {
        // Given an event with every column set, stored through the writer's insert
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.path("store.sqlite"), now: .constant(1_764_500_000_000))
        let event = EventRecord(
            id: UUID(), name: .paywallClosed, occurredAt: 1_764_400_000_123, userID: "user-1",
            sessionID: UUID(), catalogVersion: 1,
            properties: EventProperties(
                pwID: UUID(), source: "home", offeringID: "default", placementID: "p", product: "pro",
                result: .dismissed, via: .closeButton, openS: 2.5))
        try store.insert([event])
        // When each column is read by its name from the list
        let row = try #require(
            try store.connection.all("SELECT \(EventColumn.list()) FROM events") { row in
                EventColumn.record.map { column in row.value(at: column.rawValue) }
            }.first)
        // Then every column holds its field
        #expect(row[EventColumn.id.rawValue] == .text(event.id.uuidString))
        #expect(row[EventColumn.name.rawValue] == .text("paywall_closed"))
        #expect(row[EventColumn.occurredAt.rawValue] == .integer(1_764_400_000_123))
        #expect(row[EventColumn.recordedAt.rawValue] == .integer(1_764_500_000_000))
        #expect(row[EventColumn.userID.rawValue] == .text("user-1"))
        #expect(row[EventColumn.sessionID.rawValue] == .text(event.sessionID!.uuidString))
        #expect(row[EventColumn.catalogVersion.rawValue] == .integer(1))
        #expect(row[EventColumn.pwID.rawValue] == .text(event.properties.pwID.uuidString))
        #expect(row[EventColumn.source.rawValue] == .text("home"))
        #expect(row[EventColumn.offeringID.rawValue] == .text("default"))
        #expect(row[EventColumn.placementID.rawValue] == .text("p"))
        #expect(row[EventColumn.product.rawValue] == .text("pro"))
        #expect(row[EventColumn.result.rawValue] == .text("dismissed"))
        #expect(row[EventColumn.via.rawValue] == .text("close_button"))
        #expect(row[EventColumn.openS.rawValue] == .real(2.5))
    }
}
