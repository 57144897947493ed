import Foundation
import PaywallCore
import PaywallSQLite

/// Which fields of two versions of one event id differ: the test of "identical" that separates a
/// duplicate (the same event again) from a conflict (other content under a stored id).
///
/// Two versions are identical when every envelope and property field is equal after
/// canonicalisation: ids (`id`, `session_id`, `pw_id`) as UUIDs, so case and spelling do not count;
/// text fields as exact sequences of Unicode scalars (UTF-8 bytes, no canonical equivalence);
/// numbers by value. `recorded_at` is not compared: the store sets it when it stores the event.
enum EventDifference {
    /// The wire names of the fields in which `stored` and `event` differ, in column order; empty when
    /// they are identical. `stored` holds the ``EventColumn/record`` columns (``EventWriter/probeSQL``);
    /// a column's name is its wire name. Stored ids are parsed by ``UUIDText`` (canonical text, either
    /// case): the store writes nothing else.
    static func differences(stored row: Row, _ event: EventRecord) -> [String] {
        let p = event.properties
        var fields: [String] = []
        func text(_ column: EventColumn, _ value: String?) {
            if !same(row.string(at: column.rawValue), value) { fields.append(column.columnName) }
        }
        func uuid(_ column: EventColumn, _ value: UUID?) {
            let stored =
                row.isNull(at: column.rawValue)
                ? nil : row.withUnsafeText(at: column.rawValue) { UUIDText.parse($0) }
            if stored != value { fields.append(column.columnName) }
        }
        func integer(_ column: EventColumn, _ value: Int64) {
            if row.optionalInt64(at: column.rawValue) != value { fields.append(column.columnName) }
        }
        text(.name, event.name.rawValue)
        integer(.occurredAt, event.occurredAt)
        text(.userID, event.userID)
        uuid(.sessionID, event.sessionID)
        integer(.catalogVersion, Int64(event.catalogVersion))
        uuid(.pwID, p.pwID)
        text(.source, p.source)
        text(.offeringID, p.offeringID)
        text(.placementID, p.placementID)
        text(.product, p.product)
        text(.result, p.result?.rawValue)
        text(.via, p.via?.rawValue)
        if row.double(at: EventColumn.openS.rawValue) != p.openS { fields.append(EventColumn.openS.columnName) }
        for column in EventColumn.context { text(column, column.contextField.flatMap(event.context.text)) }
        return fields
    }

    /// Exact equality of Unicode scalars (Swift's `==` on `String` uses canonical equivalence).
    static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let l?, let r?): l.utf8.elementsEqual(r.utf8)
        default: false
        }
    }

    /// The quarantine reason of a conflict: what differs, never the values (they may hold user ids).
    static func reason(_ fields: [String]) -> String {
        "(id): an event with this id is already stored with other content (differs in "
            + fields.joined(separator: ", ") + "); the stored event was kept and this version was not stored. "
            + "Give a different event a new id; to replace a stored event, fix it at its source and re-import "
            + "into a new store"
    }
}
