import Foundation
import PaywallSQLite

/// Delivery states of impressions, read with SQL: `outbox` (pending), `deliveries` (delivered, or
/// forwarded by the device), an open dead letter.
struct FleetDeliveryStates {
    /// How the state is named in a failure.
    let name: String
    /// The condition on the impression `e` (an `events` row of the store read).
    let predicate: String

    static let pending = FleetDeliveryStates(
        name: "pending", predicate: "EXISTS (SELECT 1 FROM main.outbox WHERE event_rowid = e.rowid)")
    static let delivered = FleetDeliveryStates(
        name: "delivered",
        predicate: "EXISTS (SELECT 1 FROM main.deliveries WHERE event_rowid = e.rowid AND by_device = 0)")
    static let forwardedByDevice = FleetDeliveryStates(
        name: "forwarded by the device",
        predicate: "EXISTS (SELECT 1 FROM main.deliveries WHERE event_rowid = e.rowid AND by_device = 1)")

    /// The impressions of the install store `install` that the store `store` holds in another state than `state`.
    static func impressions(of install: String, in store: String, notIn state: FleetDeliveryStates) throws -> Int {
        let connection = try Connection(path: store, options: .readOnly)
        _ = try connection.run("ATTACH DATABASE ?1 AS install", [.text(install)])
        return Int(
            try connection.scalar(
                """
                SELECT count(*) FROM install.events AS i JOIN main.events AS e ON e.id = i.id
                WHERE i.name = 'paywall_shown' AND NOT (\(state.predicate))
                """)?.int64 ?? -1)
    }

    /// The impressions stored at `path`.
    static func impressionCount(_ path: String) throws -> Int {
        let connection = try Connection(path: path, options: .readOnly)
        return Int(try connection.scalar("SELECT count(*) FROM events WHERE name = 'paywall_shown'")?.int64 ?? -1)
    }
}
