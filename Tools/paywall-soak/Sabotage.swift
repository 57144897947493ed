import Foundation
import PaywallSQLite

/// Deliberate damage applied between the loops and the checks when `PAYWALL_SOAK_SABOTAGE` is set,
/// to show that each check can fail (`scripts/soak` must then exit 1):
/// - `lose-event`: deletes one acknowledged event (and its outbox, delivery and dead-letter rows);
/// - `stale-rollup`: changes one row of the nightly rollup, as a wrong incremental fold would;
/// - `undeliver`: moves one delivered impression back to the outbox with a far-future retry time.
enum Sabotage {
    static func apply(_ kind: String, db: String, acknowledged: [String]) throws {
        let connection = try Connection(path: db)
        switch kind {
        case "lose-event":
            guard let id = acknowledged.last else { return }
            let rowid = try connection.scalar("SELECT rowid FROM events WHERE id = ?1", [.text(id)])?.int64 ?? -1
            _ = try connection.run("DELETE FROM dead_letters WHERE event_id = ?1", [.text(id)])
            _ = try connection.run("DELETE FROM outbox WHERE event_rowid = ?1", [.integer(rowid)])
            _ = try connection.run("DELETE FROM deliveries WHERE event_rowid = ?1", [.integer(rowid)])
            _ = try connection.run("DELETE FROM events WHERE id = ?1", [.text(id)])
        case "stale-rollup":
            _ = try connection.run(
                "UPDATE report_presentations SET plan_selected = 1 - plan_selected WHERE pw_id = (SELECT min(pw_id) FROM report_presentations)"
            )
        case "undeliver":
            try connection.transaction { db in
                guard let rowid = try db.int64("SELECT min(event_rowid) FROM deliveries") else { return }
                try db.run(
                    "INSERT INTO outbox (event_rowid, occurred_at, next_attempt_at) SELECT event_rowid, occurred_at, ?2 FROM deliveries WHERE event_rowid = ?1",
                    [.integer(rowid), .integer(Int64.max / 2)])
                try db.run("DELETE FROM deliveries WHERE event_rowid = ?1", [.integer(rowid)])
            }
        default:
            FileHandle.standardError.write(
                Data("soak: unknown PAYWALL_SOAK_SABOTAGE \(kind); use lose-event, stale-rollup or undeliver\n".utf8))
            exit(64)
        }
        print("soak: sabotage \(kind) applied")
    }
}
