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
    /// they are identical. `stored` holds `seq, name, occurred_at, user_id, session_id, catalog_version,
    /// pw_id, source, offering_id, placement_id, product, result, via, open_s` (``EventWriter/probeSQL``).
    static func differences(stored row: Row, _ event: EventRecord) -> [String] {
        let p = event.properties
        var fields: [String] = []
        func text(_ index: Int, _ value: String?, _ name: String) {
            if !same(row.string(at: index), value) { fields.append(name) }
        }
        func uuid(_ index: Int, _ value: UUID?, _ name: String) {
            let stored = row.string(at: index).flatMap(UUID.init(uuidString:))
            if stored != value { fields.append(name) }
        }
        text(1, event.name.rawValue, "name")
        if row.optionalInt64(at: 2) != event.occurredAt { fields.append("occurred_at") }
        text(3, event.userID, "user_id")
        uuid(4, event.sessionID, "session_id")
        if row.optionalInt64(at: 5) != Int64(event.catalogVersion) { fields.append("catalog_version") }
        uuid(6, p.pwID, "pw_id")
        text(7, p.source, "source")
        text(8, p.offeringID, "offering_id")
        text(9, p.placementID, "placement_id")
        text(10, p.product, "product")
        text(11, p.result?.rawValue, "result")
        text(12, p.via?.rawValue, "via")
        if row.double(at: 13) != p.openS { fields.append("open_s") }
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
