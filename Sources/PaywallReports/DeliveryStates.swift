import Foundation
import PaywallCore
import PaywallSQLite

/// The delivery state of each exported impression (`delivery_state`): `pending` (in `outbox`),
/// `delivered` (in `deliveries`), `forwarded_by_device` (in `deliveries`, sent to RevenueCat by the
/// app install that uploaded it to a collector), `dead` (an open dead letter), else empty. Events are exported in
/// rowid order and both tables are keyed by the events rowid, so two cursors walk forward next to
/// the export (never a lookup per row); the open dead letters are read up front as the sorted
/// rowids of their events (8 bytes each, shared by the readers of a split export, where a set of
/// their ids had cost about 7 MB per reader at 78k dead letters). A reader of some rowid ranges
/// only (``ExportSplitRead``) restricts the cursors to each range in turn.
struct DeliveryStates {
    private var pending: RowidCursor
    private var delivered: RowidCursor
    private var byDevice: RowidCursor
    private let dead: [Int64]
    /// The first of `dead` not below the rows read so far.
    private var deadIndex = 0
    /// `paywall_shown`'s bytes, compared with each row's name without making a `String`.
    private static let impression = Array(EventName.paywallShown.rawValue.utf8)

    /// The states of `db`'s events; `dead` is ``deadRowids(_:)`` of the same snapshot, read here
    /// when not given.
    init(_ db: Database, dead: [Int64]? = nil) throws {
        pending = try RowidCursor(
            db, "SELECT event_rowid FROM outbox WHERE event_rowid BETWEEN ?1 AND ?2 ORDER BY event_rowid")
        delivered = try RowidCursor(
            db, "SELECT event_rowid FROM deliveries WHERE event_rowid BETWEEN ?1 AND ?2 ORDER BY event_rowid")
        let hasByDevice =
            try db.int64("SELECT count(*) FROM pragma_table_info('deliveries') WHERE name = 'by_device'") == 1
        byDevice = try RowidCursor(
            db,
            hasByDevice
                ? "SELECT event_rowid FROM deliveries WHERE by_device = 1 AND event_rowid BETWEEN ?1 AND ?2 ORDER BY event_rowid"
                : "SELECT event_rowid FROM deliveries WHERE 0 AND event_rowid BETWEEN ?1 AND ?2")
        self.dead = try dead ?? Self.deadRowids(db)
    }

    /// The rowids of the events with an open dead letter, ascending, each once.
    static func deadRowids(_ db: Database) throws -> [Int64] {
        // CROSS JOIN keeps the dead letters outside: a lookup of each by id (0.09 s for 78k of them
        // at 10M events) where SQLite's own choice scanned the events (1.8 s).
        let rowids = try db.all(
            """
            SELECT e.rowid FROM dead_letters AS d CROSS JOIN events AS e ON e.id = d.event_id
            WHERE d.requeued_at IS NULL
            """
        ) { $0.int64(at: 0) }.sorted()
        var unique: [Int64] = []
        unique.reserveCapacity(rowids.count)
        for rowid in rowids where unique.last != rowid { unique.append(rowid) }
        return unique
    }

    /// Restarts the cursors on the rowids `lower...upper` (every rowid until the first call).
    mutating func restrict(to lower: Int64, _ upper: Int64) throws {
        try pending.start(lower, upper)
        try delivered.start(lower, upper)
        try byDevice.start(lower, upper)
        var low = 0
        var high = dead.count
        while low < high {
            let middle = (low + high) / 2
            if dead[middle] < lower { low = middle + 1 } else { high = middle }
        }
        deadIndex = low
    }

    /// The state of the event in `row` (columns 0 id, 1 name, `rowidColumn` its rowid; rows come in
    /// ascending rowid order).
    mutating func state(for row: Row, rowidColumn: Int) throws -> ExportedDeliveryState {
        let isImpression = row.withUnsafeText(at: 1) { name in
            guard name.count == Self.impression.count, let bytes = name.baseAddress else { return false }
            return Self.impression.withUnsafeBytes { memcmp(bytes, $0.baseAddress!, name.count) == 0 }
        }
        guard isImpression else { return .none }
        let rowid = row.int64(at: rowidColumn)
        if try pending.contains(rowid) { return .pending }
        if try delivered.contains(rowid) { return try byDevice.contains(rowid) ? .forwardedByDevice : .delivered }
        while deadIndex < dead.count, dead[deadIndex] < rowid { deadIndex += 1 }
        return deadIndex < dead.count && dead[deadIndex] == rowid ? .dead : .none
    }
}

/// An exported impression's `delivery_state`.
enum ExportedDeliveryState: UInt8 {
    /// Not an impression, or in none of the states below.
    case none = 0
    /// In `outbox`.
    case pending
    /// In `deliveries`.
    case delivered
    /// In `deliveries`, forwarded to RevenueCat by the app install that uploaded it.
    case forwardedByDevice
    /// An open dead letter.
    case dead

    /// The column's text; `nil` for an empty field.
    var text: String? {
        switch self {
        case .none: nil
        case .pending: "pending"
        case .delivered: "delivered"
        case .forwardedByDevice: "forwarded_by_device"
        case .dead: "dead"
        }
    }
}

/// A forward-only cursor over ascending rowids in a range: `contains` must be asked in ascending order.
private struct RowidCursor {
    private let statement: Statement
    private var current: Int64?

    /// A cursor on `sql`, whose ?1 and ?2 bound the rowids `?1...?2`; it starts on every rowid.
    init(_ db: Database, _ sql: String) throws {
        statement = try db.makeStatement(sql)
        try start(.min, .max)
    }

    /// Restarts on the rowids `lower...upper`.
    mutating func start(_ lower: Int64, _ upper: Int64) throws {
        statement.bind([.integer(lower), .integer(upper)])
        current = try statement.step() ? statement.row.int64(at: 0) : nil
    }

    mutating func contains(_ rowid: Int64) throws -> Bool {
        while let value = current, value < rowid {
            current = try statement.step() ? statement.row.int64(at: 0) : nil
        }
        return current == rowid
    }
}
