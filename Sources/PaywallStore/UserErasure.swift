import Foundation
import PaywallCore
import PaywallSQLite

/// Erases customers from a store (`paywall-analytics forget --user ID`): their events, the
/// outbox entries, deliveries and dead letters of those events, the quarantined inputs that carry
/// their ids, and, through ``ErasureParticipant``s, what other modules keep per customer (the
/// reports' rollups). Their ids then go on the suppression list (``Suppression``), so later events
/// of theirs are refused.
///
/// Nothing is left behind: the erasing transaction runs with `secure_delete` on (deleted cells and
/// freed pages are overwritten with zeros), the WAL is then checkpointed and truncated to zero bytes,
/// and the database file is searched for every id's bytes; a copy left in free space by earlier
/// writes (which ran without `secure_delete`) makes it rebuild the file with `VACUUM`.
///
/// ```swift
/// let report = try UserErasure(store: store, participants: [ReportErasure()]).forget(["app-user-42"])
/// print(report.events)   // events erased
/// ```
public struct UserErasure: Sendable {
    /// The longest id that can be stored (the catalog's `user_id` `max_bytes`).
    public static let maxIDBytes = 768

    /// The store.
    public let store: EventStore
    /// Other modules' per-customer tables, erased in the same transaction.
    public var participants: [any ErasureParticipant]

    /// Creates an erasure on `store`.
    public init(store: EventStore, participants: [any ErasureParticipant] = []) {
        self.store = store
        self.participants = participants
    }

    /// Checks a list of ids and removes repeats (first occurrence kept).
    ///
    /// - Throws: ``ErasureError``.
    public static func validated(_ userIDs: [String]) throws(ErasureError) -> [String] {
        guard !userIDs.isEmpty else { throw ErasureError(.noIDs) }
        var seen = Set<[UInt8]>()
        var out: [String] = []
        for (index, id) in userIDs.enumerated() {
            let bytes = Array(id.utf8)
            if bytes.isEmpty { throw ErasureError(.emptyID(position: index + 1)) }
            if bytes.count > maxIDBytes { throw ErasureError(.tooLong(position: index + 1, bytes: bytes.count)) }
            if seen.insert(bytes).inserted { out.append(id) }
        }
        return out
    }

    /// Erases every event whose `user_id` is one of `userIDs` and everything derived from them, then
    /// cleans the file (see the type's summary). Running it again is harmless.
    ///
    /// - Parameters:
    ///   - userIDs: exact `user_id` texts (compared byte for byte).
    ///   - suppress: put the ids on the suppression list (default), so their later events are refused.
    /// - Returns: what was erased per table, and how the file was cleaned.
    /// - Throws: ``ErasureError`` for a bad list (nothing changed); `StorageError` (`.busy` when another
    ///   program holds the write lock, or when a reader kept the WAL from being truncated: the erasure is
    ///   then committed, and running it again finishes the cleaning).
    public func forget(_ userIDs: [String], suppress: Bool = true) throws -> ErasureReport {
        let ids = try Self.validated(userIDs)
        let time = store.now.milliseconds()
        let json = Self.jsonArray(ids)
        let connection = store.connection
        try connection.execute("PRAGMA secure_delete = ON")
        defer { try? connection.execute("PRAGMA secure_delete = OFF") }
        var report = try connection.transaction(.immediate) { db in
            var report = ErasureReport()
            let erased = try Self.erasedEvents(ids, json: json, db)
            report.customersWithEvents = erased.customersWithEvents
            for participant in participants {
                report.tables += try participant.erase(erased, in: db)
            }
            report.tables = try EventRowErasure.erase(erased, db) + report.tables
            report.tables.insert(TableCount(table: "quarantine", rows: try QuarantineErasure.erase(ids, db)), at: 1)
            report.tables.insert(
                TableCount(table: Self.redactedReasons, rows: try Self.redactDeadLetterReasons(ids, db)),
                at: 5)
            report.tables.append(
                TableCount(
                    table: "open_presentations",
                    rows: try db.run(
                        "DELETE FROM open_presentations WHERE user_id IN (SELECT value FROM json_each(?1))",
                        [.text(json)])))
            if suppress { report.suppressionsAdded = try Suppression.add(ids, at: time, db) }
            return report
        }
        report.vacuumed = try SecureWipe.clean(connection, needles: ids.map { Array($0.utf8) })
        if report.vacuumed {
            report.residueInOtherData = try SecureWipe.fileContains(connection.path, ids.map { Array($0.utf8) })
        }
        return report
    }

    /// Takes `userIDs` off the suppression list (`forget --allow-again`): their later events are
    /// stored again. Nothing already erased comes back.
    ///
    /// - Returns: how many of them were on the list.
    /// - Throws: ``ErasureError``, `StorageError`.
    public func allowAgain(_ userIDs: [String]) throws -> Int {
        let ids = try Self.validated(userIDs)
        let removed = try store.connection.transaction(.immediate) { db in try Suppression.remove(ids, db) }
        _ = try SecureWipe.clean(store.connection, needles: [])
        return removed
    }

    /// The customers' events, and which of their presentations other customers share.
    static func erasedEvents(_ ids: [String], json: String, _ db: Database) throws -> ErasedEvents {
        var events: [ErasedEvents.Event] = []
        var matched = Set<ExactText>()
        try db.forEachRow(
            """
            SELECT seq, pw_id, occurred_at, name = 'paywall_shown', user_id FROM events
            WHERE user_id IN (SELECT value FROM json_each(?1)) ORDER BY seq
            """, [.text(json)]
        ) { row in
            if let id = row.string(at: 4) { matched.insert(ExactText(id)) }
            events.append(
                .init(
                    seq: row.int64(at: 0), pwID: row.string(at: 1) ?? "", occurredAt: row.int64(at: 2),
                    isImpression: row.int64(at: 3) == 1))
            return true
        }
        let shared = try EventRowErasure.sharedPresentations(of: events, db)
        var erased = ErasedEvents(userIDs: ids, events: events, sharedPresentations: shared)
        erased.customersWithEvents = matched.count
        return erased
    }

    /// The name under which ``forget(_:suppress:)`` counts the other customers' dead letters whose
    /// reason quoted an erased id (RevenueCat's answer to a batch may name several customers).
    public static let redactedReasons = "dead_letters (reasons redacted)"

    /// Replaces each id (as written and JSON-escaped) where it stands as a word in the reasons of the
    /// dead letters left (``IDTokens/replacingWords(_:in:with:)``: `invalid app_user_id 42` names
    /// customer `42`, `HTTP 422` does not) with `[a forgotten customer]`; returns how many letters
    /// changed.
    static func redactDeadLetterReasons(_ ids: [String], _ db: Database) throws -> Int {
        let replacement = Array("[a forgotten customer]".utf8)
        var forms: [[UInt8]] = []
        for id in ids {
            let escaped = String(JSONString.quoted(id).dropFirst().dropLast())
            for form in Set([id, escaped]) { forms.append(Array(form.utf8)) }
        }
        var rewritten: [(Int64, [UInt8])] = []
        var letters = Set<Int64>()
        for form in forms {
            rewritten.removeAll()
            try db.forEachRow(
                "SELECT rowid, CAST(reason AS BLOB) FROM dead_letters WHERE instr(CAST(reason AS BLOB), ?1) > 0",
                [.blob(Data(form))]
            ) { row in
                let reason = row.withUnsafeBlob(at: 1) { Array($0) }
                if let changed = IDTokens.replacingWords(form, in: reason, with: replacement) {
                    rewritten.append((row.int64(at: 0), changed))
                }
                return true
            }
            for (rowid, reason) in rewritten {
                try db.run(
                    "UPDATE dead_letters SET reason = ?1 WHERE rowid = ?2",
                    [.text(String(decoding: reason, as: UTF8.self)), .integer(rowid)])
                letters.insert(rowid)
            }
        }
        return letters.count
    }

    /// A JSON array of strings, for binding lists to `json_each`.
    static func jsonArray(_ values: [String]) -> String {
        "[" + values.map(JSONString.quoted).joined(separator: ",") + "]"
    }
}
