import PaywallCore

/// The figures the HTML page draws, summed from the report tables.
struct HTMLReportModel {
    struct Funnel {
        var presentations = 0, impressions = 0, planSelected = 0, purchaseStarted = 0, purchased = 0
        var bounces = 0, cancellations = 0
    }

    struct Day {
        var date: String
        var impressions: Int
        var purchased: Int
    }

    let tables: [String: ReportTable]

    func records(_ name: String) -> [[String: String]] { tables[name]?.records ?? [] }

    /// Placements in the order of the summary table (code-point order), falling back to the funnels.
    /// Placements are compared by their exact scalars throughout: `caf\u{E9}` and `cafe\u{301}` are two
    /// sections, as they are two rows of the CSVs.
    var placements: [String] {
        var seen = Set<ExactText>()
        var ordered: [String] = []
        for record in records("placement_summary") + records("encounter_funnel") + records("conversion_funnel") {
            if let placement = record["placement"], seen.insert(ExactText(placement)).inserted {
                ordered.append(placement)
            }
        }
        return ordered
    }

    func funnel(for placement: String) -> Funnel {
        var funnel = Funnel()
        for record in records("encounter_funnel") where ExactText.same(record["placement"], placement) {
            funnel.presentations += int(record["presentations"])
        }
        for record in records("conversion_funnel") where ExactText.same(record["placement"], placement) {
            funnel.impressions += int(record["impressions"])
            funnel.planSelected += int(record["plan_selected"])
            funnel.purchaseStarted += int(record["purchase_started"])
            funnel.purchased += int(record["purchased"])
            funnel.bounces += int(record["bounces"])
            funnel.cancellations += int(record["purchase_cancellations"])
        }
        return funnel
    }

    func daily(for placement: String) -> [Day] {
        records("conversion_funnel").filter { ExactText.same($0["placement"], placement) }.map {
            Day(date: $0["date"] ?? "", impressions: int($0["impressions"]), purchased: int($0["purchased"]))
        }
    }

    /// The day rows of `placement` by date.
    func dailyByDate(for placement: String) -> [String: Day] {
        Dictionary(daily(for: placement).map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The calendar axis of the daily charts: every day from `first` to `last` (the report's
    /// period), else from the first to the last day with data in the funnels.
    func calendar(first: String?, last: String?) -> [String] {
        if let first, let last, !CalendarDays.from(first, to: last).isEmpty {
            return CalendarDays.from(first, to: last)
        }
        let dates = (records("conversion_funnel") + records("encounter_funnel")).compactMap { $0["date"] }
            .filter { CalendarDays.ordinal($0) != nil }
        guard let low = dates.min(), let high = dates.max() else { return [] }
        return CalendarDays.from(low, to: high)
    }

    var qualityTotals: [String: Int] {
        var totals: [String: Int] = [:]
        for record in records("data_quality") {
            for (key, value) in record where key != "date" { totals[key, default: 0] += int(value) }
        }
        return totals
    }

    func int(_ text: String?) -> Int { text.flatMap { Int($0) } ?? 0 }
}
