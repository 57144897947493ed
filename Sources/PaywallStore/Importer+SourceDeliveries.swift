import Foundation
import PaywallCore
import PaywallSQLite

extension Importer {
    /// How an attached source store (`import_source`) records its impressions' delivery state.
    enum SourceLayout: Equatable {
        /// `outbox` and `deliveries` keyed by the events rowid (migration store/outbox-keyed-by-event-rowid
        /// and later); `byDevice`: `deliveries.by_device` exists (store/deliveries-by-device);
        /// `toCollector`: `deliveries.to_collector` exists (an app install's uploader handed the
        /// impression to a collector that forwards it: not delivered to RevenueCat, so pending here);
        /// `ownByDevice`: the source is not a collector's store (it has no `write_keys`), so it is an app
        /// install's (or a recording server's) own file, and what its forwarder delivered was forwarded
        /// by that device: it is recorded as `by_device`, as a collector records an install that sends
        /// `X-Paywall-Forwarding: device`.
        case rowidKeyed(byDevice: Bool, toCollector: Bool, ownByDevice: Bool)
        /// The first outbox (legacy versions 1–5): `event_id` and a `state` column. Such a store
        /// predates collectors: what it delivered was forwarded by the device that recorded it.
        case stateColumn

        /// Reads the layout of the attached `import_source`.
        static func of(_ db: Database) throws -> SourceLayout {
            func columns(_ table: String) throws -> Set<String> {
                Set(
                    try db.all("SELECT name FROM pragma_table_info(?1, 'import_source')", [.text(table)]) {
                        $0.string(at: 0) ?? ""
                    })
            }
            let deliveries = try columns("deliveries")
            let ownByDevice = try columns("write_keys").isEmpty
            if !deliveries.isEmpty {
                return .rowidKeyed(
                    byDevice: deliveries.contains("by_device"), toCollector: deliveries.contains("to_collector"),
                    ownByDevice: ownByDevice)
            }
            return try columns("outbox").contains("state")
                ? .stateColumn
                : .rowidKeyed(byDevice: false, toCollector: false, ownByDevice: ownByDevice)
        }
    }

    /// The source rows of one batch: the rowid, ``sourceColumns`` (as `Importer.members(of:)` reads
    /// them), then the delivery state: `delivered_at` (NULL unless delivered), `by_device`, and the
    /// rowid of the impression's latest open dead letter (NULL unless not delivered and dead).
    /// Delivered wins over a dead letter, which wins over pending, should a damaged source hold two.
    /// A column in `missing` (absent from an older source) is selected as `NULL`.
    static func sourceSelect(_ layout: SourceLayout, missing: Set<String> = []) -> String {
        let columns = (["rowid"] + sourceColumns).map { missing.contains($0) ? "NULL" : "e.\($0)" }
            .joined(separator: ", ")
        let openLetter = """
            (SELECT max(l.rowid) FROM import_source.dead_letters AS l WHERE l.event_id = e.id AND l.requeued_at IS NULL)
            """
        let impression = "e.name = '\(EventName.paywallShown.rawValue)'"
        let state: String
        let joins: String
        switch layout {
        case .rowidKeyed(let byDevice, let toCollector, let ownByDevice):
            state =
                "v.delivered_at, \(ownByDevice ? "1" : byDevice ? "v.by_device" : "0"), "
                + "CASE WHEN \(impression) AND v.event_rowid IS NULL THEN \(openLetter) END"
            joins =
                "LEFT JOIN import_source.deliveries AS v ON v.event_rowid = e.rowid AND \(impression)"
                + (toCollector ? " AND v.to_collector = 0" : "")
        case .stateColumn:
            state =
                "CASE WHEN o.state = 'delivered' THEN coalesce(o.delivered_at, 0) END, 1, "
                + "CASE WHEN \(impression) AND coalesce(o.state, '') <> 'delivered' THEN \(openLetter) END"
            joins = "LEFT JOIN import_source.outbox AS o ON o.event_id = e.id AND \(impression)"
        }
        return "SELECT \(columns), \(state) FROM import_source.events AS e \(joins) "
            + "WHERE e.rowid > ?1 ORDER BY e.rowid LIMIT ?2"
    }

    /// The column of `sourceSelect`'s `delivered_at`; `by_device` and the dead letter's rowid follow.
    static var deliveryColumn: Int { sourceColumns.count + 1 }

    /// The state of the row just read (without the dead letter's details: ``deadLetter(_:rowid:)``).
    static func delivery(of row: Row) -> (state: ImportedDelivery, deadLetterRowid: Int64?) {
        if let deliveredAt = row.optionalInt64(at: deliveryColumn) {
            return (.delivered(at: deliveredAt, byDevice: row.int64(at: deliveryColumn + 1) != 0), nil)
        }
        return (.pending, row.optionalInt64(at: deliveryColumn + 2))
    }

    /// The open dead letter `rowid` of the source, as a state to keep (`nil`: it vanished).
    static func deadLetter(_ db: Database, rowid: Int64) throws -> ImportedDelivery? {
        // Not cached: the statement names the attached database, which is detached after the import.
        let statement = try db.makeStatement(
            "SELECT status, reason, dead_at FROM import_source.dead_letters WHERE rowid = ?1")
        statement.bind(rowid, at: 1)
        guard try statement.step() else { return nil }
        let row = statement.row
        return .dead(status: row.int64(at: 0), reason: row.string(at: 1) ?? "", at: row.int64(at: 2))
    }
}
