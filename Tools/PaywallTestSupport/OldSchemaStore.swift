import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

/// Writes a real store file of the schema before the context columns (`store/event-context`): the
/// store's migrations up to that one, applied by the real migrator, and catalog version 1 events
/// inserted with the columns that schema has. For tests of opening and importing such a file.
public enum OldSchemaStore {
    /// The name of the first migration the old schema lacks.
    public static let firstMissing = "event-context"

    /// The migrator of the old schema: the store's migrations before ``firstMissing``.
    public static var migrator: Migrator {
        let store = Schema.storeMigrations
        let end = store.migrations.firstIndex { $0.name == firstMissing } ?? store.migrations.endIndex
        return Migrator(
            [MigrationGroup(owner: store.owner, Array(store.migrations[..<end]))], legacy: Schema.legacyIdentifiers,
            identity: Schema.identity)
    }

    /// Creates the file at `path` with `presentations` version-1 presentations (an impression and a
    /// close each, the close dismissed by the close button after 2.5 s; placement `home`), and returns
    /// their events in insertion order.
    @discardableResult
    public static func write(path: String, presentations: Int, startingAt start: Int64 = 1_764_400_000_000)
        throws -> [EventRecord]
    {
        let connection = try migrator.open(path: path)
        var events: [EventRecord] = []
        for index in 0..<presentations {
            let time = start + Int64(index) * 60_000
            let pwID = UUIDv7.make(milliseconds: time)
            let user = "old-user-\(index)"
            events.append(
                PaywallShown(pwID: pwID, source: "home").record(
                    id: UUIDv7.make(milliseconds: time + 1_000), occurredAt: time + 1_000, userID: user))
            events.append(
                PaywallClosed(pwID: pwID, source: "home", result: .dismissed, via: .closeButton, openS: 2.5).record(
                    id: UUIDv7.make(milliseconds: time + 2_500), occurredAt: time + 2_500, userID: user))
        }
        for index in events.indices { events[index].catalogVersion = 1 }
        try connection.transaction(.immediate) { db in
            for event in events {
                let p = event.properties
                _ = try db.run(
                    """
                    INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source,
                                        result, via, open_s)
                    VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7, ?8, ?9, ?10)
                    """,
                    [
                        .text(event.id.uuidString), .text(event.name.rawValue), .integer(event.occurredAt),
                        .integer(event.occurredAt + 10), .text(event.userID), .text(p.pwID.uuidString),
                        .text(p.source), p.result.map { .text($0.rawValue) } ?? .null,
                        p.via.map { .text($0.rawValue) } ?? .null, p.openS.map { .real($0) } ?? .null,
                    ])
            }
        }
        return events
    }
}
