import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

/// Erases forgotten customers' subscription events (`forget --user`), as an ``ErasureParticipant``
/// of the store's erasure, in its transaction (with `secure_delete` on, then the file cleaned and
/// searched for the ids).
///
/// An event is erased, with its raw body and all its customer keys, when
/// - one of its customer keys (`app_user_id`, `original_app_user_id`, an alias) is one of the ids, or
/// - its raw body holds one of the ids as a whole JSON string (as written or JSON-escaped) anywhere:
///   a `TRANSFER` names customers only in `transferred_from` / `transferred_to`, and a body may
///   carry an id in fields this project does not read.
///
/// Other events of the same subscription that do not name the customer (after a transfer they are
/// another customer's) are kept.
///
/// ```swift
/// let report = try UserErasure(store: store, participants: [ReportErasure(), SubscriptionErasure()]).forget(ids)
/// ```
public struct SubscriptionErasure: ErasureParticipant {
    /// Creates the participant.
    public init() {}

    /// Erases the events of `erased.userIDs` (see the type's summary); counts per table.
    public func erase(_ erased: ErasedEvents, in db: Database) throws -> [TableCount] {
        let rowids = try Self.rowids(naming: erased.userIDs, db)
        guard !rowids.isEmpty else {
            return SubscriptionSchema.tables.map { TableCount(table: $0, rows: 0) }
        }
        let list: [SQLValue] = [.text("[" + rowids.sorted().map(String.init).joined(separator: ",") + "]")]
        let top = try db.int64("SELECT coalesce(max(rowid), 0) FROM subscription_events") ?? 0
        if rowids.contains(top) { try SubscriptionRowidFloor.raise(to: top, db) }
        let keys = try db.run(
            "DELETE FROM subscription_customer_keys WHERE event_rowid IN (SELECT value FROM json_each(?1))", list)
        let events = try db.run(
            "DELETE FROM subscription_events WHERE rowid IN (SELECT value FROM json_each(?1))", list)
        return [
            TableCount(table: "subscription_events", rows: events),
            TableCount(table: "subscription_customer_keys", rows: keys),
        ]
    }

    /// The rowids of the events naming any of `ids` (see the type's summary).
    static func rowids(naming ids: [String], _ db: Database) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        let json = "[" + ids.map(JSONString.quoted).joined(separator: ",") + "]"
        var rowids = Set(
            try db.all(
                "SELECT DISTINCT event_rowid FROM subscription_customer_keys WHERE customer_key IN (SELECT value FROM json_each(?1))",
                [.text(json)]
            ) { $0.int64(at: 0) })
        let wanted = Set(ids.map { Array($0.utf8) })
        for id in ids {
            let escaped = String(JSONString.quoted(id).dropFirst().dropLast())
            for form in Set([id, escaped]) {
                try db.forEachRow(
                    "SELECT rowid, raw_body FROM subscription_events WHERE instr(raw_body, ?1) > 0",
                    [.blob(Data(form.utf8))]
                ) { row in
                    let rowid = row.int64(at: 0)
                    if !rowids.contains(rowid), let body = row.data(at: 1), Self.body([UInt8](body), holdsAnyOf: wanted)
                    {
                        rowids.insert(rowid)
                    }
                    return true
                }
            }
        }
        return rowids
    }

    /// Whether a body holds one of `ids` as a whole JSON string (a key or a value, at any depth); a
    /// body that does not parse (none is stored so) counts when it holds an id's bytes at all.
    static func body(_ bytes: [UInt8], holdsAnyOf ids: Set<[UInt8]>) -> Bool {
        guard let root = try? WebhookJSON.parse(bytes) else { return true }
        return strings(in: root).contains { ids.contains(Array($0.utf8)) }
    }

    /// Every JSON string of `root`, keys and values, at any depth: what erasure and suppression
    /// compare ids with.
    static func strings(in root: WebhookJSON) -> [String] {
        var out: [String] = []
        var stack = [root]
        while let value = stack.popLast() {
            switch value {
            case .string(let text): out.append(text)
            case .array(let elements): stack += elements
            case .object(let members):
                for member in members {
                    out.append(member.key)
                    stack.append(member.value)
                }
            case .null, .bool, .number: break
            }
        }
        return out
    }
}
