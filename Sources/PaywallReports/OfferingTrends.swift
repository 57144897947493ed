import Foundation
import PaywallCore
import PaywallSQLite

/// Each offering's conversion and revenue per customer over the report's range, for the page's
/// offering trends: per (placement, offering) and per day that offering was seen, the customers and
/// converted customers counted from the range's first day to the end of that day (funnels.md's
/// offering comparison: a presentation's offering is its first impression's, only presentations
/// with an impression count, a customer once per offering), and the attributed revenue of the
/// presentations on those days. On the last day with data the counts equal the comparison's.
///
/// Design note: neither the presentation scan nor the nightly day partials keep customers per
/// offering per day (the partials hold each day's distinct customers, not who was already counted on
/// an earlier day, which a cumulative count needs). The series are read instead from
/// `report_presentations` (the rollup, one row per presentation, never `events`) inside the
/// report's read transaction, grouped by day and customer in SQL, so a range report, the nightly
/// job and either engine draw the same lines. A `--platform` / `--app-version` filter shadows the
/// rollup for the query (``FunnelReport/shadowPresentations(_:_:)``) as it does for the SQL engine.
/// The page only reads this table; it is not written as a CSV.
enum OfferingTrends {
    /// The table's name and columns (cumulative counts; revenue in micro-dollars, exact).
    static let name = "offering_trends"
    static let columns = ["date", "placement", "offering", "customers", "converted", "revenue_micros"]

    /// One row per (day, placement, offering, customer) of the range: whether that customer bought
    /// on one of those presentations.
    static let sql = """
        WITH days AS (
          SELECT CAST(key AS INTEGER) AS day, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
        )
        SELECT d.day, l.placement, coalesce(p.offering, ''), p.customer_key, max(p.close_result IS 'purchased')
        FROM days AS d
        JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
        JOIN report_placements AS l ON l.key = p.placement_key
        WHERE p.impression_at IS NOT NULL
          AND (:placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements)))
        GROUP BY d.day, p.placement_key, coalesce(p.offering, ''), p.customer_key
        ORDER BY d.day
        """

    /// The table over `days`, from the rollup and the attribution (its subscriptions' revenue on the
    /// day of the presentation they are attributed to).
    static func table(
        _ db: Database, days: [ReportDay], parameters: [String: SQLValue], attribution: SubscriptionAttribution
    ) throws -> ReportTable {
        struct Key: Hashable {
            var placement: ExactText
            var offering: ExactText
        }
        struct Running {
            var customers = Set<Int64>()
            var converted = Set<Int64>()
            var revenue: Int64 = 0
            var lastDay = -1
        }
        let revenueRows = RevenueRows(attribution: attribution, days: days)
        var revenueByDay: [Int: [Key: Int64]] = [:]
        for s in attribution.subscriptions {
            guard let day = revenueRows.dayIndex(s.firstAt) else { continue }
            revenueByDay[day, default: [:]][
                Key(placement: ExactText(s.placement), offering: ExactText(s.offering)),
                default: 0] += s.revenueMicros
        }
        var running: [Key: Running] = [:]
        var order: [Key] = []
        var rows: [[String]] = []
        var currentDay = -1
        func close(day: Int) {
            guard day >= 0 else { return }
            for key in order where running[key]?.lastDay == day {
                var state = running[key]!
                state.revenue += revenueByDay[day]?[key] ?? 0
                running[key] = state
                rows.append([
                    days[day].date.description, key.placement.text, key.offering.text, String(state.customers.count),
                    String(state.converted.count), String(state.revenue),
                ])
            }
        }
        try db.forEachRow(sql, NamedParameters.values(for: sql, parameters)) { row in
            let day = Int(row.int64(at: 0))
            if day != currentDay {
                close(day: currentDay)
                currentDay = day
            }
            let key = Key(placement: ExactText(row.string(at: 1) ?? ""), offering: ExactText(row.string(at: 2) ?? ""))
            if running[key] == nil {
                running[key] = Running()
                order.append(key)
            }
            let customer = row.int64(at: 3)
            running[key]!.customers.insert(customer)
            if row.int64(at: 4) == 1 { running[key]!.converted.insert(customer) }
            running[key]!.lastDay = day
            return true
        }
        close(day: currentDay)
        return ReportTable(name: name, columns: columns, rows: rows)
    }
}
