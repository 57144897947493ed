import Foundation
import PaywallCore
import PaywallLock
import PaywallOutput
import PaywallSQLite

/// The tracker's ``PresentationJournal`` in the store: the `open_presentations` table.
///
/// Each journal is one owner: this process's id and a random token. At the start of the library
/// on a store, ``recoverAbandoned(writing:isAlive:)`` closes the presentations of owners that are gone:
/// a process that no longer runs, or a journal of this process that was shut down (or belonged to
/// an earlier instance on a reused process id). A presentation of a process still running (a
/// second process on the same store) is left alone.
///
/// ```swift
/// let journal = PresentationJournalTable(store: store)
/// let report = try journal.recoverAbandoned()        // before the tracker opens anything
/// let tracker = PresentationTracker(sink: recorder, clock: clock, now: now, journal: journal)
/// // after each successful flush: journal.purge(closedBefore)
/// ```
///
/// Design note: a save is one upsert on the store's connection, made synchronously on the caller's
/// thread (the app's, in `appeared()`), not buffered like events. It is a handful of small changes per
/// presentation (open, appear, disappear, plan, impression, close, one per checkpoint interval),
/// and only a synchronous write makes "journaled before it goes to the sink" hold; it waits when the
/// recorder is committing a batch on the same connection (the commit's time, milliseconds).
public final class PresentationJournalTable: PresentationJournal, Sendable {
    /// Who owns a row: a process and one journal in it.
    public struct Owner: Sendable, Hashable {
        /// The process id.
        public var pid: Int32
        /// The journal's random token.
        public var token: String

        /// Creates an owner.
        public init(pid: Int32, token: String) {
            self.pid = pid
            self.token = token
        }
    }

    /// What ``recoverAbandoned(writing:isAlive:)`` did.
    public struct Recovery: Sendable, Hashable {
        /// Presentations closed with `via = abandoned`.
        public var abandoned = 0
        /// Presentations whose own close (journaled, not yet stored) was written.
        public var closesWritten = 0
        /// Impressions journaled and not yet stored that were written.
        public var impressionsWritten = 0
        /// Rows of presentations already closed in the events table, deleted.
        public var alreadyClosed = 0
        /// Rows left alone: their owner still runs.
        public var leftToLiveOwners = 0

        /// Nothing done.
        public init() {}
    }

    /// The store the table is in.
    public let store: EventStore
    /// This journal's owner.
    public let owner: Owner
    /// Closes journaled since the last ``purge(_:)``; their rows go once the closes are durable.
    private let closed = Lock<[String]>([])
    /// Whether saving is on (off once ``stop()`` was called, or while the install is opted out).
    private let enabled = Lock(true)
    /// What a failed save is reported to (a save never throws into the tracker).
    let diagnostics: @Sendable (String) -> Void

    /// The tokens of this process's journals that are not stopped (a row of this process with
    /// another token belongs to a journal that is gone).
    static let liveTokens = Lock<Set<String>>([])

    /// Creates the journal of a new owner (this process, a fresh token) on `store`.
    public init(store: EventStore, diagnostics: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.owner = Owner(pid: getpid(), token: UUID().uuidString)
        self.diagnostics = diagnostics
        _ = Self.liveTokens.withLock { $0.insert(owner.token) }
    }

    /// Whether `owner` still runs: another process that the system reports running, or a journal of
    /// this process that is not stopped.
    public static func isRunning(_ owner: Owner) -> Bool {
        if owner.pid == getpid() { return liveTokens.withLock { $0.contains(owner.token) } }
        return ProcessLiveness.isRunning(owner.pid)
    }

    /// Stops saving and marks this owner gone (at shutdown): its rows are recovered by the next start.
    public func stop() {
        enabled.withLock { $0 = false }
        _ = Self.liveTokens.withLock { $0.remove(owner.token) }
    }

    /// Turns saving off (`false`, the install opted out: nothing about a customer is kept) or on.
    public func setEnabled(_ on: Bool) {
        enabled.withLock { $0 = on }
    }

    /// See ``PresentationJournal/save(_:)``: one upsert of the presentation's row.
    public func save(_ snapshot: PresentationSnapshot) {
        guard enabled.withLock({ $0 }) else { return }
        do {
            try store.connection.run(
                """
                INSERT INTO open_presentations (pw_id, owner_pid, owner_token, user_id, session_id, source,
                  offering_id, placement_id, last_product, visible_s, checkpoint_at, impression, close)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                ON CONFLICT (pw_id) DO UPDATE SET last_product = excluded.last_product,
                  visible_s = excluded.visible_s, checkpoint_at = excluded.checkpoint_at,
                  impression = excluded.impression, close = excluded.close
                """,
                [
                    .text(snapshot.pwID.uuidString), .integer(Int64(owner.pid)), .text(owner.token),
                    .text(snapshot.userID), .text(snapshot.sessionID?.uuidString), .text(snapshot.source),
                    .text(snapshot.offeringID), .text(snapshot.placementID), .text(snapshot.lastProduct),
                    .real(snapshot.visibleSeconds), .integer(snapshot.checkpointAt),
                    .text(snapshot.impression?.ndjsonLine), .text(snapshot.close?.ndjsonLine),
                ])
            if snapshot.close != nil { closed.withLock { $0.append(snapshot.pwID.uuidString) } }
        } catch {
            diagnostics(
                "the state of an open paywall could not be saved (it is saved again on its next change): \(error)")
        }
    }

    /// The presentations closed since the last purge: pass them to ``purge(_:)`` once everything
    /// recorded before this call is durable (after a successful flush).
    public func closedSoFar() -> [String] { closed.withLock { $0 } }

    /// Deletes the rows of `pwIDs` (closed presentations whose closes are now durable).
    public func purge(_ pwIDs: [String]) throws {
        guard !pwIDs.isEmpty else { return }
        let done = Set(pwIDs)
        try store.connection.transaction { db in
            for pwID in pwIDs { try db.run("DELETE FROM open_presentations WHERE pw_id = ?1", [.text(pwID)]) }
        }
        closed.withLock { $0.removeAll { done.contains($0) } }
    }

    /// Closes the presentations whose owner is gone, each in the transaction that deletes its row, so
    /// each is closed exactly once however often this runs or is interrupted: a journaled impression
    /// and close are stored (a copy already stored is a duplicate and adds nothing); a presentation
    /// without a close gets `result = dismissed`, `via = abandoned`, `open_s` = its recorded visible
    /// time (at most the catalog's bound), dated at its last checkpoint. With `writing: false` (the
    /// install opted out) the rows are deleted and nothing is stored.
    ///
    /// The abandoned close carries the context of the presentation's journaled impression, else
    /// `context` (the recovering app's: ``DeviceContext``).
    ///
    /// - Parameters:
    ///   - isAlive: whether an owner still runs (default ``isRunning(_:)``).
    ///   - context: where an abandoned close without a journaled impression comes from.
    /// - Throws: `StorageError`; then nothing of the failed transaction changed.
    @discardableResult
    public func recoverAbandoned(
        writing: Bool = true, context: EventContext = .empty,
        isAlive: (Owner) -> Bool = PresentationJournalTable.isRunning
    )
        throws -> Recovery
    {
        let validator = EventValidator()
        let time = store.now.milliseconds()
        return try store.connection.transaction(.immediate) { db in
            var recovery = Recovery()
            let rows = try db.all(
                """
                SELECT pw_id, owner_pid, owner_token, user_id, session_id, source, offering_id, placement_id,
                       last_product, visible_s, checkpoint_at, impression, close
                FROM open_presentations ORDER BY checkpoint_at, pw_id
                """
            ) { row in
                (
                    owner: Owner(pid: Int32(truncatingIfNeeded: row.int64(at: 1)), token: row.string(at: 2) ?? ""),
                    pwID: row.string(at: 0) ?? "", user: row.string(at: 3) ?? "", session: row.string(at: 4),
                    source: row.string(at: 5) ?? "", offering: row.string(at: 6), placement: row.string(at: 7),
                    product: row.string(at: 8), visible: row.double(at: 9) ?? 0, checkpoint: row.int64(at: 10),
                    impression: row.string(at: 11), close: row.string(at: 12)
                )
            }
            let writer = EventWriter(db: db)
            for row in rows {
                guard !isAlive(row.owner) else {
                    recovery.leftToLiveOwners += 1
                    continue
                }
                try db.run("DELETE FROM open_presentations WHERE pw_id = ?1", [.text(row.pwID)])
                guard writing, let pwID = UUIDText.parse(row.pwID) else { continue }
                func stored(_ line: String?) -> EventRecord? {
                    guard let line, case .valid(let event) = validator.validate(line: line) else { return nil }
                    return event
                }
                /// Stores one event; whether it was new.
                func write(_ event: EventRecord) throws -> Bool {
                    let outcome = try writer.insert([event], recordedAt: time)
                    for entry in outcome.conflictEntries { try writer.quarantine(entry) }
                    return outcome.inserted == 1
                }
                let impression = stored(row.impression)
                if let impression, try write(impression) {
                    recovery.impressionsWritten += 1
                }
                let close: EventRecord
                if let journaled = stored(row.close) {
                    close = journaled
                } else {
                    close = PresentationSnapshot(
                        pwID: pwID, source: row.source, offeringID: row.offering, placementID: row.placement,
                        userID: row.user, sessionID: row.session.flatMap(UUIDText.parse), visibleSeconds: row.visible,
                        checkpointAt: row.checkpoint, lastProduct: row.product
                    ).abandonedClose(context: impression?.context ?? context)
                }
                if try !write(close) {
                    recovery.alreadyClosed += 1
                } else if row.close == nil {
                    recovery.abandoned += 1
                } else {
                    recovery.closesWritten += 1
                }
            }
            return recovery
        }
    }
}
