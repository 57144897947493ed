import PaywallSQLite

/// Deletes chosen events with their outbox entries, deliveries and dead letters (the store's rows
/// that key on an event), shared by ``UserErasure`` and ``OptOutErasure``. Runs inside the
/// caller's transaction, which has `secure_delete` on.
enum EventRowErasure {
    /// The presentations of `events` that keep other events once `events` are gone.
    static func sharedPresentations(of events: [ErasedEvents.Event], _ db: Database) throws -> Set<String> {
        guard !events.isEmpty else { return [] }
        let presentations = UserErasure.jsonArray(Array(Set(events.map(\.pwID))))
        let seqs = list(events)
        var shared = Set<String>()
        try db.forEachRow(
            """
            SELECT DISTINCT pw_id FROM events
            WHERE pw_id IN (SELECT value FROM json_each(?1)) AND seq NOT IN (SELECT value FROM json_each(?2))
            """, [.text(presentations), .text(seqs)]
        ) { row in
            shared.insert(row.string(at: 0) ?? "")
            return true
        }
        return shared
    }

    /// Deletes the events and their dead letters, outbox entries and deliveries (dead letters first:
    /// their triggers look the event up), keeping rowids from being reused (``SequenceFloor``).
    static func erase(_ erased: ErasedEvents, _ db: Database) throws -> [TableCount] {
        guard !erased.events.isEmpty else {
            return ["events", "outbox", "deliveries", "dead_letters"].map { TableCount(table: $0, rows: 0) }
        }
        let values: [SQLValue] = [.text(list(erased.events))]
        let deadLetters = try db.run(
            """
            DELETE FROM dead_letters WHERE event_id IN (SELECT id FROM events WHERE seq IN (SELECT value FROM json_each(?1)))
            """, values)
        let outbox = try db.run("DELETE FROM outbox WHERE event_rowid IN (SELECT value FROM json_each(?1))", values)
        let deliveries = try db.run(
            "DELETE FROM deliveries WHERE event_rowid IN (SELECT value FROM json_each(?1))", values)
        let top = try db.int64("SELECT coalesce(max(seq), 0) FROM events") ?? 0
        if erased.events.contains(where: { $0.seq == top }) { try SequenceFloor.raise(to: top, db) }
        let events = try db.run("DELETE FROM events WHERE seq IN (SELECT value FROM json_each(?1))", values)
        return [
            TableCount(table: "events", rows: events), TableCount(table: "outbox", rows: outbox),
            TableCount(table: "deliveries", rows: deliveries), TableCount(table: "dead_letters", rows: deadLetters),
        ]
    }

    /// The events' rowids as a JSON array.
    static func list(_ events: [ErasedEvents.Event]) -> String {
        "[" + events.map { String($0.seq) }.joined(separator: ",") + "]"
    }
}
