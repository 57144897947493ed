import PaywallCore
import PaywallSQLite

/// ``DeliveryPauses`` in the `delivery_pauses` table (migration store/upload-cursor-and-delivery-pauses),
/// one row per paused destination, so every process sees a pause another one set.
public struct SQLiteDeliveryPauses: DeliveryPauses {
    private let connection: Connection

    /// Uses `connection`, which must have been opened with ``Schema/open(path:options:registering:)``.
    public init(connection: Connection) { self.connection = connection }

    /// The stored pause of `destination`, expired or not.
    public func pause(of destination: String) throws -> DeliveryPause? {
        try connection.withDatabase { db in
            var found: DeliveryPause?
            try db.forEachRow(
                "SELECT paused_until, failures, reason FROM delivery_pauses WHERE destination = ?1",
                [.text(destination)]
            ) { row in
                found = DeliveryPause(
                    until: row.int64(at: 0), failures: Int(row.int64(at: 1)), reason: row.string(at: 2) ?? "")
                return false
            }
            return found
        }
    }

    /// Stores (replacing) the pause of `destination`.
    public func setPause(_ pause: DeliveryPause, of destination: String) throws {
        _ = try connection.run(
            """
            INSERT INTO delivery_pauses (destination, paused_until, failures, reason) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT(destination) DO UPDATE SET paused_until = excluded.paused_until, failures = excluded.failures,
              reason = excluded.reason
            """, [.text(destination), .integer(pause.until), .integer(Int64(pause.failures)), .text(pause.reason)])
    }

    /// Removes the pause of `destination`.
    public func clearPause(of destination: String) throws {
        _ = try connection.run("DELETE FROM delivery_pauses WHERE destination = ?1", [.text(destination)])
    }
}
