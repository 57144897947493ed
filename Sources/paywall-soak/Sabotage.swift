import Foundation
import PaywallSQLite

/// Deliberate damage applied between the loops and the checks when `PAYWALL_SOAK_SABOTAGE` is set,
/// to show that each check can fail (`scripts/soak` must then exit 1):
/// - `lose-event`: deletes one acknowledged event (and its outbox row);
/// - `stale-rollup`: changes one row of the nightly rollup, as a wrong incremental fold would;
/// - `undeliver`: puts one delivered impression back to pending with a far-future retry time.
enum Sabotage {
    static func apply(_ kind: String, db: String, acknowledged: [String]) throws {
        let connection = try Connection(path: db)
        switch kind {
        case "lose-event":
            guard let id = acknowledged.last else { return }
            _ = try connection.run("DELETE FROM dead_letters WHERE event_id = ?1", [.text(id)])
            _ = try connection.run("DELETE FROM outbox WHERE event_id = ?1", [.text(id)])
            _ = try connection.run("DELETE FROM events WHERE id = ?1", [.text(id)])
        case "stale-rollup":
            _ = try connection.run("UPDATE report_presentations SET plan_selected = 1 - plan_selected WHERE rowid = (SELECT min(rowid) FROM report_presentations)")
        case "undeliver":
            _ = try connection.run("UPDATE outbox SET state = 'pending', next_attempt_at = ?1 WHERE rowid = (SELECT min(rowid) FROM outbox WHERE state = 'delivered')", [.integer(Int64.max / 2)])
        default:
            FileHandle.standardError.write(Data("soak: unknown PAYWALL_SOAK_SABOTAGE \(kind); use lose-event, stale-rollup or undeliver\n".utf8))
            exit(64)
        }
        print("soak: sabotage \(kind) applied")
    }
}
