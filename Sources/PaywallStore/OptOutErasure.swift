import PaywallSQLite

/// Deletes what an opted-out install has not yet sent anywhere (`optOut()`), with nothing
/// left behind (`secure_delete`, then the WAL checkpointed and truncated, and the file rebuilt when
/// a copy of an erased event's id is left in free space):
/// - every impression still waiting in the outbox for RevenueCat (not forwarded);
/// - every event not yet uploaded to a collector (rowid above `uploadedThrough`; with no uploader,
///   every event), except impressions already delivered to RevenueCat or dead-lettered, which left
///   the device (or were refused) already.
///
/// ```swift
/// let report = try OptOutErasure(store: store).erasePending(uploadedThrough: nil)
/// ```
public struct OptOutErasure: Sendable {
    /// At most this many erased event ids are searched for in the file; above it the file is rebuilt
    /// (`VACUUM`) without searching (a device store is small).
    static let searchedIDs = 256

    /// The store.
    public let store: EventStore
    /// Other modules' tables derived from events (the reports' rollups), erased in the same transaction.
    public var participants: [any ErasureParticipant]

    /// Creates the erasure on `store`.
    public init(store: EventStore, participants: [any ErasureParticipant] = []) {
        self.store = store
        self.participants = participants
    }

    /// Deletes the pending events (see the type's summary).
    ///
    /// - Parameter uploadedThrough: the uploader's cursor (highest events rowid a collector acknowledged),
    ///   or `nil` when this install uploads nowhere.
    /// - Returns: rows erased per table.
    /// - Throws: `StorageError` (`.busy` as ``UserErasure/forget(_:suppress:)``).
    @discardableResult
    public func erasePending(uploadedThrough: Int64?) throws -> ErasureReport {
        let connection = store.connection
        try connection.execute("PRAGMA secure_delete = ON")
        defer { try? connection.execute("PRAGMA secure_delete = OFF") }
        var ids: [[UInt8]] = []
        var report = try connection.transaction(.immediate) { db in
            var events: [ErasedEvents.Event] = []
            try db.forEachRow(Self.pendingSQL, [.integer(uploadedThrough ?? 0)]) { row in
                events.append(
                    .init(
                        seq: row.int64(at: 0), pwID: row.string(at: 1) ?? "", occurredAt: row.int64(at: 2),
                        isImpression: row.int64(at: 3) == 1))
                if ids.count <= Self.searchedIDs { ids.append(row.withUnsafeText(at: 4) { Array($0) }) }
                return true
            }
            let erased = ErasedEvents(
                userIDs: [], events: events,
                sharedPresentations: try EventRowErasure.sharedPresentations(of: events, db))
            var report = ErasureReport()
            for participant in participants { report.tables += try participant.erase(erased, in: db) }
            report.tables = try EventRowErasure.erase(erased, db) + report.tables
            // The journal of open paywalls holds customer ids and unsent events: all of it goes.
            report.tables.append(
                TableCount(table: "open_presentations", rows: try db.run("DELETE FROM open_presentations")))
            return report
        }
        if ids.count > Self.searchedIDs {
            try SecureWipe.checkpoint(connection)
            try connection.execute("VACUUM")
            try SecureWipe.checkpoint(connection)
            report.vacuumed = true
        } else {
            report.vacuumed = try SecureWipe.clean(connection, needles: ids)
        }
        return report
    }

    /// The events an opted-out install deletes: pending impressions, and what was not uploaded unless
    /// it is an impression already delivered or dead-lettered. `?1`: the upload cursor (0: none).
    static let pendingSQL = """
        SELECT e.seq, e.pw_id, e.occurred_at, e.name = 'paywall_shown', e.id FROM events AS e
        WHERE e.seq IN (SELECT event_rowid FROM outbox)
           OR (e.seq > ?1 AND NOT (e.name = 'paywall_shown'
                 AND (EXISTS (SELECT 1 FROM deliveries AS d WHERE d.event_rowid = e.seq)
                      OR EXISTS (SELECT 1 FROM dead_letters AS l WHERE l.event_id = e.id AND l.requeued_at IS NULL))))
        ORDER BY e.seq
        """
}
