import Foundation
import PaywallCore
import PaywallSQLite

/// Writes events, outbox or delivery rows, quarantine rows and drop counts through prepared statements on a
/// ``Database`` already inside a transaction. Shared by the recorder, the store and import.
///
/// Every event is one of: inserted, a duplicate (identical to the stored event of its id, see
/// ``EventDifference``), or a conflict (other content under a stored id: the stored row is kept and
/// the incoming version goes to the quarantine with what differs). Rowids are assigned in batch
/// order (see IMPORT-FAST-PATH.md).
struct EventWriter {
    let db: Database
    /// A database import's source states, one per event of the batch being inserted: a new
    /// impression whose state is settled goes to `deliveries` or the dead letters, not the outbox.
    var importedDeliveries: [ImportedDelivery]?
    /// While the unique index on `events.id` is left out (a first import, see ``FirstImportIDs``):
    /// the ids stored so far with their rowids, which find repeated ids instead.
    var idsWithoutIndex: FirstImportIDs?

    /// Every column of ``EventColumn`` (`seq` last: `NULL` lets SQLite pick the rowid), each bound
    /// at its ``EventColumn/parameter``.
    static let insertEventSQL = """
        INSERT INTO events (\(EventColumn.list(EventColumn.allCases)))
        VALUES (\(EventColumn.allCases.map { "?\($0.parameter)" }.joined(separator: ", ")))
        ON CONFLICT(id) DO NOTHING
        """
    /// ``insertEventSQL`` without the conflict clause, for a table without the id index (the writer
    /// finds repeated ids in ``idsWithoutIndex`` first).
    static let insertEventWithoutIndexSQL = """
        INSERT INTO events (\(EventColumn.list(EventColumn.allCases)))
        VALUES (\(EventColumn.allCases.map { "?\($0.parameter)" }.joined(separator: ", ")))
        """
    /// The stored version of the event with rowid `?1` (the probe while ``idsWithoutIndex`` is set).
    static let probeByRowidSQL = "SELECT \(EventColumn.list()) FROM events WHERE seq = ?1"
    /// The stored version of one id: its ``EventColumn/record`` columns, which
    /// ``EventDifference/differences(stored:_:)`` reads.
    static let probeSQL = "SELECT \(EventColumn.list()) FROM events WHERE id = ?1"
    /// `OR REPLACE`: a stale row left by a reused rowid (events are never deleted, so this should
    /// not happen) must not make the batch fail; the new impression is pending.
    static let insertOutboxSQL = "INSERT OR REPLACE INTO outbox (event_rowid, occurred_at) VALUES (?1, ?2)"
    /// A repeat is recognised by the digest of the input's exact bytes (`?6`, unique); rows stored
    /// before digests existed are matched by their payload text, and only when the new payload is
    /// the whole input as valid UTF-8 (`?8`), which is what those rows held.
    static let insertQuarantineSQL = """
        INSERT INTO quarantine (quarantined_at, reasons, payload, origin, line, line_sha256, payload_raw)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
        WHERE NOT (?8 AND EXISTS (SELECT 1 FROM quarantine WHERE line_sha256 IS NULL AND payload = ?3))
        ON CONFLICT (line_sha256) DO NOTHING
        """
    static let insertDropsSQL = "INSERT INTO drops (dropped_at, count) VALUES (?1, ?2)"

    /// Stores the events not stored yet; impressions newly stored (and only those) also enter the
    /// outbox as pending or, when `forwarded`, the deliveries as delivered at `recordedAt`. An event
    /// identical to a stored one is a duplicate and changes nothing; one with other content under a
    /// stored id is a conflict: the stored row is untouched and the outcome carries its quarantine
    /// entry (at `recordedAt`, with `provenance`), which the caller writes with ``quarantine(_:)``.
    /// `byDevice` marks the deliveries of `forwarded` impressions as made by the app install that
    /// recorded them (``NewImpressions/forwardedByDevice``).
    ///
    /// Events of a forgotten customer (``Suppression``) are not stored: they are counted in the
    /// outcome's ``InsertOutcome/suppressed`` and in `suppressed_events`.
    func insert<Events: Collection<EventRecord>>(
        _ events: Events, recordedAt: Int64, forwarded: Bool = false,
        byDevice: Bool = false,
        provenance: EventProvenance = .unknown
    ) throws -> InsertOutcome {
        if let suppression = try Suppression.load(db) {
            var kept: [EventRecord] = []
            var lines: [Int]? = provenance.lines.map { _ in [] }
            kept.reserveCapacity(events.count)
            // One hash per customer of the batch, not per event (keyed by bytes: `String` equality
            // would merge canonically equivalent ids, which are different customers).
            var verdicts: [[UInt8]: Bool] = [:]
            func forgotten(_ user: String) -> Bool {
                let key = Array(user.utf8)
                if let known = verdicts[key] { return known }
                let verdict = suppression.contains(user)
                verdicts[key] = verdict
                return verdict
            }
            for (index, event) in events.enumerated() where !forgotten(event.userID) {
                kept.append(event)
                if let line = provenance.line(index) { lines?.append(line) }
            }
            let suppressed = events.count - kept.count
            try Suppression.recordSuppressed(suppressed, at: recordedAt, db)
            var outcome = try insertUnsuppressed(
                kept, recordedAt: recordedAt, forwarded: forwarded, byDevice: byDevice,
                provenance: EventProvenance(origin: provenance.origin, lines: lines))
            outcome.suppressed = suppressed
            return outcome
        }
        return try insertUnsuppressed(
            events, recordedAt: recordedAt, forwarded: forwarded, byDevice: byDevice,
            provenance: provenance)
    }

    /// ``insert(_:recordedAt:forwarded:byDevice:provenance:)`` once suppressed events are taken out.
    private func insertUnsuppressed<Events: Collection<EventRecord>>(
        _ events: Events, recordedAt: Int64, forwarded: Bool, byDevice: Bool, provenance: EventProvenance
    ) throws -> InsertOutcome {
        let floor = try SequenceFloor.pending(db)
        return try insertPlain(
            events, recordedAt: recordedAt, forwarded: forwarded, byDevice: byDevice,
            provenance: provenance, floor: floor)
    }

    /// The write path: one `INSERT … ON CONFLICT DO NOTHING` per event in batch order; an id already
    /// stored is then read back and compared. Time-ordered UUIDv7 ids (the recorder, most imports)
    /// write the id index in order; random ids were measured faster this way than sorted by id first
    /// (IMPORT-FAST-PATH.md).
    func insertPlain<Events: Sequence<EventRecord>>(
        _ events: Events, recordedAt: Int64, forwarded: Bool,
        byDevice: Bool = false,
        provenance: EventProvenance, floor: Int64? = nil
    ) throws -> InsertOutcome {
        let insertEvent = try db.cachedStatement(
            idsWithoutIndex == nil ? Self.insertEventSQL : Self.insertEventWithoutIndexSQL)
        var outcome = InsertOutcome()
        var conflicts: [(index: Int, event: EventRecord, fields: [String])] = []
        // After an erasure of the newest rows, the first new row starts above them (SequenceFloor).
        var forcedSeq = floor.map { $0 + 1 }
        for (index, event) in events.enumerated() {
            // Without the id index, an id stored earlier in this import is found in memory and its row
            // read by rowid: what the conflict clause and the probe by id do with the index.
            // (A candidate row is read once: its id confirms it, its columns give the differences.)
            var storedFields: [String]?
            let storedRowid = try idsWithoutIndex?.rowid(of: event.id) { rowid in
                storedFields = try differences(event, ifStoredAt: rowid)
                return storedFields != nil
            }
            if storedRowid == nil {
                bind(event, recordedAt: recordedAt, to: insertEvent)
                insertEvent.bind(forcedSeq, at: EventColumn.seq.parameter)
                try insertEvent.run()
            }
            if storedRowid == nil, db.changes == 1 {
                forcedSeq = nil
                outcome.inserted += 1
                let rowid = db.lastInsertRowID
                idsWithoutIndex?.insert(event.id, rowid: rowid)
                try afterInsert(
                    event, index: index, rowid: rowid, recordedAt: recordedAt,
                    forwarded: forwarded, byDevice: byDevice)
                continue
            }
            let fields = try storedFields ?? storedDifferences(event)
            if fields.isEmpty {
                outcome.duplicates += 1
                if importedDeliveries != nil { outcome.duplicateIndexes.append(index) }
            } else {
                conflicts.append((index, event, fields))
            }
        }
        conflictEntries(conflicts, at: recordedAt, provenance: provenance, into: &outcome)
        return outcome
    }

    /// How the event stored at `rowid` differs from `event` (empty: identical) when that row has
    /// `event`'s id; `nil` when it holds another id (whose hash in ``idsWithoutIndex`` matched) or none.
    func differences(_ event: EventRecord, ifStoredAt rowid: Int64) throws -> [String]? {
        let probe = try db.cachedStatement(Self.probeByRowidSQL)
        defer { probe.reset() }
        probe.bind(rowid, at: 1)
        guard try probe.step() else { return nil }
        let sameID = UUIDText.withCanonical(event.id) { canonical in
            probe.row.withUnsafeText(at: EventColumn.id.rawValue) { $0.elementsEqual(canonical) }
        }
        return sameID ? EventDifference.differences(stored: probe.row, event) : nil
    }

    /// Binds `event`'s ``EventColumn/record`` columns (`recorded_at` = `recordedAt`).
    func bind(_ event: EventRecord, recordedAt: Int64, to statement: Statement) {
        let properties = event.properties
        UUIDText.withCanonical(event.id) { statement.bindText($0, at: EventColumn.id.parameter) }
        statement.bind(event.name.rawValue, at: EventColumn.name.parameter)
        statement.bind(event.occurredAt, at: EventColumn.occurredAt.parameter)
        statement.bind(recordedAt, at: EventColumn.recordedAt.parameter)
        statement.bind(event.userID, at: EventColumn.userID.parameter)
        if let session = event.sessionID {
            UUIDText.withCanonical(session) { statement.bindText($0, at: EventColumn.sessionID.parameter) }
        } else {
            statement.bindNull(at: EventColumn.sessionID.parameter)
        }
        statement.bind(Int64(event.catalogVersion), at: EventColumn.catalogVersion.parameter)
        UUIDText.withCanonical(properties.pwID) { statement.bindText($0, at: EventColumn.pwID.parameter) }
        statement.bind(properties.source, at: EventColumn.source.parameter)
        statement.bind(properties.offeringID, at: EventColumn.offeringID.parameter)
        statement.bind(properties.placementID, at: EventColumn.placementID.parameter)
        statement.bind(properties.product, at: EventColumn.product.parameter)
        statement.bind(properties.result?.rawValue, at: EventColumn.result.parameter)
        statement.bind(properties.via?.rawValue, at: EventColumn.via.parameter)
        statement.bind(properties.openS, at: EventColumn.openS.parameter)
        let context = event.context
        statement.bind(context.appVersion, at: EventColumn.appVersion.parameter)
        statement.bind(context.build, at: EventColumn.build.parameter)
        statement.bind(context.platform?.rawValue, at: EventColumn.platform.parameter)
        statement.bind(context.osVersion, at: EventColumn.osVersion.parameter)
        statement.bind(context.sdkVersion, at: EventColumn.sdkVersion.parameter)
        statement.bind(context.locale, at: EventColumn.locale.parameter)
    }

    /// The outbox row (or delivery, or the imported dead letter) of a newly stored impression,
    /// the `index`th of its batch.
    func afterInsert(
        _ event: EventRecord, index: Int, rowid: Int64, recordedAt: Int64, forwarded: Bool,
        byDevice: Bool = false
    ) throws {
        guard event.name == .paywallShown else { return }
        if let imported = importedDeliveries?[index], imported != .pending {
            try imported.record(db, id: event.id, eventRowid: rowid, occurredAt: event.occurredAt)
        } else if forwarded {
            try Deliveries.record(
                db, eventRowid: rowid, occurredAt: event.occurredAt, deliveredAt: recordedAt,
                byDevice: byDevice)
        } else {
            let insertOutbox = try db.cachedStatement(Self.insertOutboxSQL)
            insertOutbox.bind(rowid, at: 1)
            insertOutbox.bind(event.occurredAt, at: 2)
            try insertOutbox.run()
        }
    }

    /// How the stored event with `event`'s id differs from it (empty: identical, or none stored).
    func storedDifferences(_ event: EventRecord) throws -> [String] {
        let probe = try db.cachedStatement(Self.probeSQL)
        defer { probe.reset() }
        UUIDText.withCanonical(event.id) { probe.bindText($0, at: 1) }
        guard try probe.step() else { return [] }
        return EventDifference.differences(stored: probe.row, event)
    }

    /// The quarantine entries of conflicts: each incoming version as its NDJSON line, with what differs.
    func conflictEntries(
        _ conflicts: [(index: Int, event: EventRecord, fields: [String])], at time: Int64,
        provenance: EventProvenance, into outcome: inout InsertOutcome
    ) {
        for conflict in conflicts {
            outcome.conflicts += 1
            outcome.conflictEntries.append(
                QuarantineEntry(
                    quarantinedAt: time, reasons: [EventDifference.reason(conflict.fields)],
                    payload: NDJSONLine.encode(conflict.event), origin: provenance.origin,
                    line: provenance.line(conflict.index)))
        }
    }

    /// Adds one quarantine row unless the same input (by its bytes) is already quarantined; returns whether it did.
    /// An input that carries the id of a forgotten customer (``QuarantineUserIDs``, or any whole token
    /// of it by ``IDTokens``' rule, the one `forget` erases by) is not stored either: it is counted in
    /// `suppressed_events`, and this returns `false`.
    @discardableResult
    func quarantine(_ entry: QuarantineEntry) throws -> Bool {
        try quarantineResult(entry) == .stored
    }

    /// Whether a quarantined input names a suppressed customer: its parsed or scanned `user_id`, or
    /// any piece of it (``IDTokens/pieces(of:)``), hashed and looked up in the list.
    static func carriesForgottenID(_ entry: QuarantineEntry, _ db: Database) throws -> Bool {
        let bytes = entry.rawPayload ?? Array(entry.payload.utf8)
        var candidates = Set(QuarantineUserIDs.ids(in: bytes))
        for piece in IDTokens.pieces(of: bytes) { candidates.insert(String(decoding: piece, as: UTF8.self)) }
        return try Suppression.contains(anyOf: Array(candidates), db)
    }

    /// What ``quarantine(_:)`` did with an entry.
    enum QuarantineResult { case stored, alreadyQuarantined, suppressed }

    /// ``quarantine(_:)``, saying whether an entry not stored was a repeat or a forgotten customer's.
    func quarantineResult(_ entry: QuarantineEntry) throws -> QuarantineResult {
        if try Suppression.anyForgotten(db), try Self.carriesForgottenID(entry, db) {
            try Suppression.recordSuppressed(1, at: entry.quarantinedAt, db)
            return .suppressed
        }
        let statement = try db.cachedStatement(Self.insertQuarantineSQL)
        statement.bind(entry.quarantinedAt, at: 1)
        statement.bind(entry.reasons.joined(separator: "; "), at: 2)
        statement.bind(entry.payload, at: 3)
        statement.bind(entry.origin, at: 4)
        statement.bind(entry.line.map(Int64.init), at: 5)
        entry.identity.withUnsafeBytes { statement.bindBlob($0, at: 6) }
        if let raw = entry.rawPayload {
            raw.withUnsafeBytes { statement.bindBlob($0, at: 7) }
        } else {
            statement.bindNull(at: 7)
        }
        statement.bind(Int64(entry.payloadIsExact ? 1 : 0), at: 8)
        try statement.run()
        return db.changes == 1 ? .stored : .alreadyQuarantined
    }

    /// Records `count` events dropped at the recorder's bound (nothing when zero).
    func recordDrops(_ count: Int, at time: Int64) throws {
        guard count > 0 else { return }
        let statement = try db.cachedStatement(Self.insertDropsSQL)
        statement.bind(time, at: 1)
        statement.bind(Int64(count), at: 2)
        try statement.run()
    }
}
