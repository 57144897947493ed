import Foundation
import PaywallCore
import PaywallSQLite

/// The delivery state of each exported impression (`delivery_state`): `pending` (in `outbox`),
/// `delivered` (in `deliveries`), `forwarded_by_device` (in `deliveries`, sent to RevenueCat by the
/// app install that uploaded it to a collector), `dead` (an open dead letter), else empty. Events are exported in
/// rowid order and both tables are keyed by the events rowid, so two cursors walk forward next to
/// the export (never a lookup per row); the open dead letters are few and read up front.
struct DeliveryStates {
    private var pending: RowidCursor
    private var delivered: RowidCursor
    private var byDevice: RowidCursor
    private let dead: Set<String>
    /// `paywall_shown`'s bytes, compared with each row's name without making a `String`.
    private static let impression = Array(EventName.paywallShown.rawValue.utf8)

    init(_ db: Database) throws {
        pending = try RowidCursor(db, "SELECT event_rowid FROM outbox ORDER BY event_rowid")
        delivered = try RowidCursor(db, "SELECT event_rowid FROM deliveries ORDER BY event_rowid")
        let hasByDevice =
            try db.int64("SELECT count(*) FROM pragma_table_info('deliveries') WHERE name = 'by_device'") == 1
        byDevice = try RowidCursor(
            db,
            hasByDevice
                ? "SELECT event_rowid FROM deliveries WHERE by_device = 1 ORDER BY event_rowid"
                : "SELECT event_rowid FROM deliveries WHERE 0")
        dead = Set(
            try db.all("SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL") {
                $0.string(at: 0) ?? ""
            })
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
        if !dead.isEmpty, let id = row.string(at: 0), dead.contains(id) { return .dead }
        return .none
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

/// A forward-only cursor over ascending rowids: `contains` must be asked in ascending order.
private struct RowidCursor {
    private let statement: Statement
    private var current: Int64?

    init(_ db: Database, _ sql: String) throws {
        statement = try db.makeStatement(sql)
        current = try statement.step() ? statement.row.int64(at: 0) : nil
    }

    mutating func contains(_ rowid: Int64) throws -> Bool {
        while let value = current, value < rowid {
            current = try statement.step() ? statement.row.int64(at: 0) : nil
        }
        return current == rowid
    }
}
