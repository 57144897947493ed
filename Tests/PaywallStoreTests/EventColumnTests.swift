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
        // Then the live list names the same columns in the same order, but for seq: the context
        // columns were added after it by ALTER TABLE, and the list keeps it last (rawValue = position
        // in a row that selects `record` first)
        let seqAtEnd = table.filter { $0 != "seq" } + ["seq"]
        #expect(EventColumn.allCases.map(\.columnName) == seqAtEnd)
        #expect(table.firstIndex(of: "seq") == EventColumn.appVersion.rawValue)
        #expect(Array(table.suffix(EventColumn.context.count)) == EventColumn.context.map(\.columnName))
        #expect(EventColumn.allCases.map(\.rawValue) == Array(table.indices))
        #expect(EventColumn.record == Array(EventColumn.allCases.dropLast()))
        #expect(EventColumn.context.map(\.contextField) == EventContext.fields)
        #expect(EventColumn.list([.id, .pwID], prefix: "e.") == "e.id, e.pw_id")
    }

    @Test func eachColumnIsNamedAsItsNDJSONField() {
        // The envelope fields of version 1, then the generated catalog properties, then the context
        // fields of version 2, then seq
        let context = Set(EventContext.fields)
        let wire =
            EnvelopeField.allCases.filter { !context.contains($0) }.map(\.rawValue)
            + PropertyName.allCases.map(\.rawValue) + EventContext.fields.map(\.rawValue)
        #expect(EventColumn.record.map(\.columnName) == wire)
        #expect(EventColumn.seq.columnName == "seq")
    }

    @Test func anEventWrittenAndReadBackThroughTheListIsUnchanged() throws {
        // Given an event with every column set, stored through the writer's insert
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.path("store.sqlite"), now: .constant(1_764_500_000_000))
        let event = EventRecord(
            id: UUID(), name: .paywallClosed, occurredAt: 1_764_400_000_123, userID: "user-1",
            sessionID: UUID(), catalogVersion: 2,
            properties: EventProperties(
                pwID: UUID(), source: "home", offeringID: "default", placementID: "p", product: "pro",
                result: .dismissed, via: .closeButton, openS: 2.5),
            context: EventContext(
                appVersion: "3.2.0", build: "412", platform: .ipados, osVersion: "17.4.1", sdkVersion: "0.1.0",
                locale: "de-CH"))
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
        #expect(row[EventColumn.catalogVersion.rawValue] == .integer(2))
        #expect(row[EventColumn.pwID.rawValue] == .text(event.properties.pwID.uuidString))
        #expect(row[EventColumn.source.rawValue] == .text("home"))
        #expect(row[EventColumn.offeringID.rawValue] == .text("default"))
        #expect(row[EventColumn.placementID.rawValue] == .text("p"))
        #expect(row[EventColumn.product.rawValue] == .text("pro"))
        #expect(row[EventColumn.result.rawValue] == .text("dismissed"))
        #expect(row[EventColumn.via.rawValue] == .text("close_button"))
        #expect(row[EventColumn.openS.rawValue] == .real(2.5))
        #expect(row[EventColumn.appVersion.rawValue] == .text("3.2.0"))
        #expect(row[EventColumn.build.rawValue] == .text("412"))
        #expect(row[EventColumn.platform.rawValue] == .text("ipados"))
        #expect(row[EventColumn.osVersion.rawValue] == .text("17.4.1"))
        #expect(row[EventColumn.sdkVersion.rawValue] == .text("0.1.0"))
        #expect(row[EventColumn.locale.rawValue] == .text("de-CH"))
        // And the same event again is a duplicate; with another app_version, a conflict naming it
        #expect(try store.insert([event]) == 0)
        var other = event
        other.context.appVersion = "3.2.1"
        #expect(try store.insert([other]) == 0)
        let reasons = try store.connection.all("SELECT reasons FROM quarantine") { $0.string(at: 0) ?? "" }
        #expect(reasons.count == 1)
        #expect(reasons.first?.contains("differs in app_version)") == true, "\(reasons)")
    }

    @Test func aStoreOfTheSchemaBeforeTheContextColumnsMigratesWithItsEventsUnchanged() throws {
        // Given a store file migrated up to the migration before the context columns, holding an event
        let directory = TemporaryDirectory()
        let path = directory.path("old.sqlite")
        try OldSchemaStore.write(path: path, presentations: 3)
        // When the current program opens it
        let store = try EventStore(path: path, now: .constant(1_764_500_000_000))
        // Then the events table has the context columns, empty for the old events
        let counts = try store.connection.all(
            "SELECT count(*), count(app_version), count(platform), count(locale) FROM events"
        ) { row in (0..<4).map { row.int64(at: $0) } }
        #expect(counts.first == [6, 0, 0, 0])
        let migrations = try store.connection.all("SELECT name FROM pragma_table_info('events')") {
            $0.string(at: 0) ?? ""
        }
        #expect(Set(EventColumn.allCases.map(\.columnName)) == Set(migrations))
    }
}
