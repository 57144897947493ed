import Foundation
import PaywallSQLite

/// Reads the fleet's stores on read-only connections of the driver's own, while their owners run.
enum FleetStoreReader {
    /// The highest `events.seq` of the store at `path` (0 when empty or not there yet).
    static func eventCount(_ path: String) -> Int {
        guard let connection = try? Connection(path: path, options: .readOnly) else { return 0 }
        return Int((try? connection.scalar("SELECT coalesce(max(seq), 0) FROM events"))?.int64 ?? 0)
    }

    /// Whether every event of `member`'s store is in the central store and, for an install that
    /// forwards its own impressions, its outbox is empty.
    static func isDrained(_ member: FleetMember, into central: String) -> Bool {
        do {
            let connection = try Connection(path: central, options: .readOnly)
            _ = try connection.run("ATTACH DATABASE ?1 AS install", [.text(member.database)])
            let missing = try connection.scalar(
                """
                SELECT count(*) FROM install.events AS i WHERE NOT EXISTS (SELECT 1 FROM main.events AS c WHERE c.id = i.id)
                """)?.int64
            guard missing == 0 else { return false }
            guard member.party == "device" else { return true }
            return try connection.scalar("SELECT count(*) FROM install.outbox")?.int64 == 0
        } catch {
            return false
        }
    }
}
