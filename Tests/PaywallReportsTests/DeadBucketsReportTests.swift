import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// `data_quality.sql` reads `report_dead_buckets` (migration 9) instead of scanning the open dead
/// letters and their events: it must give the same rows as the query it replaced.
struct DeadBucketsReportTests {
    /// The `dead_buckets` part of `data_quality.sql` before migration 9 (the rest is unchanged).
    static let oldDeadCTEs = """
        dead_buckets AS (
          SELECT e.occurred_at / 900000 AS bucket, count(*) AS dead
          FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS l
          CROSS JOIN events AS e ON e.id = l.event_id AND e.name = 'paywall_shown'
          GROUP BY bucket
        ),
        dead AS (
          SELECT d.date, sum(b.dead) AS dead
          FROM days AS d
          JOIN dead_buckets AS b ON b.bucket >= d.start_ms / 900000 AND b.bucket < d.end_ms / 900000
          GROUP BY d.date
        )
        """

    static let newDeadCTE = """
        dead AS (
          SELECT d.date, sum(b.dead) AS dead
          FROM days AS d
          JOIN report_dead_buckets AS b ON b.bucket >= d.start_ms / 900000 AND b.bucket < d.end_ms / 900000
          WHERE b.dead > 0
          GROUP BY d.date
        )
        """

    /// Every row of data quality over `days`, each column as text (as the CSV writes it).
    static func rows(_ sql: String, _ connection: Connection, _ days: [ReportDay]) throws -> [[String]] {
        try connection.all(sql.replacingOccurrences(of: ":days", with: "?1"), [.text(DayCalendar.json(days))]) { row in
            (0..<ReportFile.dataQuality.columns.count).map { row.string(at: $0) ?? "NULL" }
        }
    }

    @Test func dataQualityGivesTheRowsOfTheOldQueryThroughDeadLetterChurn() throws {
        // Given the random report store (600 presentations over six days) with its rollups built,
        // and the old query rebuilt from the current file
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try EngineAgreementTests.randomStore(at: folder.path("db"), seed: 11)
        _ = try FunnelReport(connection: connection, now: .constant(0)).refreshRollups()
        let current = ReportQueries.dataQuality
        #expect(current.contains(Self.newDeadCTE), "data_quality.sql's dead CTE changed: update this test")
        let old = current.replacingOccurrences(of: Self.newDeadCTE, with: Self.oldDeadCTEs)
        let ids = try connection.all("SELECT id FROM events WHERE name = 'paywall_shown' ORDER BY id") {
            $0.string(at: 0) ?? ""
        }
        let others = try connection.all("SELECT id FROM events WHERE name != 'paywall_shown' LIMIT 5") {
            $0.string(at: 0) ?? ""
        }
        let targets = ids + others + ["01990000-0000-7000-8000-0000000FFFFF"]
        var random = SeededGenerator(seed: 99)
        let zones = ["UTC", "Asia/Kolkata", "Australia/Lord_Howe"]
        var nonZero = 0
        // When dead letters are written, requeued, reopened, moved and deleted in rounds
        for round in 0..<30 {
            try connection.transaction { db in
                for _ in 0..<40 {
                    let target = SQLValue.text(targets[random.below(targets.count)])
                    switch random.below(10) {
                    case 0..<6:
                        try db.run(
                            "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, 400, 'r', 1)",
                            [target])
                    case 6: try db.run("UPDATE dead_letters SET requeued_at = NULL WHERE event_id = ?1", [target])
                    case 7:
                        try db.run(
                            "UPDATE dead_letters SET event_id = ?1 WHERE rowid = (SELECT max(rowid) FROM dead_letters)",
                            [target])
                    case 8: try db.run("DELETE FROM dead_letters WHERE event_id = ?1", [target])
                    default:
                        try db.run(
                            "UPDATE dead_letters SET requeued_at = 2 WHERE requeued_at IS NULL AND rowid % 3 = ?1",
                            [.integer(Int64(random.below(3)))])
                    }
                }
            }
            // Then, in several zones, the rows equal the old query's, column by column
            let zone = zones[round % zones.count]
            let days = try DayCalendar(timeZone: zone).days(
                from: try ReportDate("2026-10-31"), through: try ReportDate("2026-11-08"))
            let new = try Self.rows(current, connection, days)
            #expect(new == (try Self.rows(old, connection, days)), "round \(round), \(zone)")
            nonZero += new.filter { $0[8] != "0" }.count  // impressions_dead_lettered (after `suppressed`)
        }
        #expect(nonZero > 30, "the churn leaves dead impressions on several days")
    }
}
