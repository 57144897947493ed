import Foundation
import PaywallCore
import PaywallSQLite

/// What the source store of a database import had done with one of its impressions. Importing
/// another store's file keeps it, so shards merge into one store without sending anything twice:
/// an impression delivered there (by its forwarder, or forwarded by the app install that uploaded
/// it) is delivered here, one dead-lettered there is dead-lettered here with the same answer, and
/// one still pending there is pending here (or delivered at import time with `--no-forward`).
///
/// From an app install's own file (a store without a collector's `write_keys`), what its forwarder
/// delivered is recorded as forwarded by the device (`by_device`), exactly as the collector records
/// an install that forwards itself; a collector's shard keeps its `by_device` flags as they are.
///
/// An impression an app install's uploader handed to a collector that forwards it
/// (`deliveries.to_collector`) was not delivered to RevenueCat by anyone yet: it is pending here, as
/// it is in that collector's outbox (the store importing install files takes the collector's place).
///
/// An import only ever settles a pending impression: a newly stored one takes the source's state,
/// a duplicate that is pending here takes the source's delivery or dead letter, and an impression
/// already delivered or dead-lettered here keeps its state.
enum ImportedDelivery: Sendable, Hashable {
    /// Pending in the source (in its outbox, or in none of its delivery tables).
    case pending
    /// In the source's `deliveries`, delivered at `at` (Unix ms); `byDevice`: forwarded by the app
    /// install that uploaded it to a collector (`deliveries.by_device`).
    case delivered(at: Int64, byDevice: Bool)
    /// The source's open dead letter: RevenueCat's `status` and `reason`, dead since `at` (Unix ms).
    /// Only the open letter travels; letters closed by a requeue stay in the source.
    case dead(status: Int64, reason: String, at: Int64)

    static let insertDeadLetterSQL =
        "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, ?2, ?3, ?4)"

    /// Records this state for the stored impression `id` (`events.rowid` = `eventRowid`), which is
    /// in neither the outbox nor the deliveries; `.pending` records nothing (the caller queues it).
    func record(_ db: Database, id: UUID, eventRowid: Int64, occurredAt: Int64) throws {
        switch self {
        case .pending:
            return
        case .delivered(let at, let byDevice):
            try Deliveries.record(
                db, eventRowid: eventRowid, occurredAt: occurredAt, deliveredAt: at, byDevice: byDevice)
        case .dead(let status, let reason, let at):
            let insert = try db.cachedStatement(Self.insertDeadLetterSQL)
            UUIDText.withCanonical(id) { insert.bindText($0, at: 1) }
            insert.bind(status, at: 2)
            insert.bind(reason, at: 3)
            insert.bind(at, at: 4)
            try insert.run()
        }
    }
}
