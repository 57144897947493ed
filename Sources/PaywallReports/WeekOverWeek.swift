import Foundation

/// What changed in the last 7 days of a report against the 7 before, per placement: impressions and
/// purchases per impression, each with a p-value, from the report's own daily rows (no state kept
/// between runs). Needs a report period of at least 14 days.
struct WeekOverWeek {
    /// One placement's two weeks.
    struct Change {
        var placement: String
        var impressions: (previous: Int, last: Int)
        var purchased: (previous: Int, last: Int)

        /// Two-sided p-value that the two weeks' impression counts differ only by chance: the counts
        /// as Poisson, conditioned on their sum (normal approximation, z = (B − A) / √(A + B)); `nil`
        /// when both are 0.
        var impressionsP: Double? {
            let sum = Double(impressions.previous + impressions.last)
            guard sum > 0 else { return nil }
            return erfc(abs(Double(impressions.last - impressions.previous)) / sum.squareRoot() / 2.0.squareRoot())
        }

        /// Purchases per impression of each week (`nil` without impressions).
        var rates: (previous: Double?, last: Double?) {
            (
                impressions.previous > 0 ? Double(purchased.previous) / Double(impressions.previous) : nil,
                impressions.last > 0 ? Double(purchased.last) / Double(impressions.last) : nil
            )
        }

        /// Two-sided p-value of the pooled two-proportion z-test of the two weeks' rates (the
        /// offering comparison's test); `nil` when a week has no impression or nothing varies.
        var conversionP: Double? {
            guard impressions.previous > 0, impressions.last > 0 else { return nil }
            return OfferingStatistics.pValue(
                converted: Int64(purchased.last), customers: Int64(impressions.last),
                controlConverted: Int64(purchased.previous), controlCustomers: Int64(impressions.previous))
        }
    }

    /// The previous week's first and last day, and the last week's.
    var previous: (first: String, last: String)
    var last: (first: String, last: String)
    /// One change per placement, in the page's order.
    var changes: [Change]

    /// The comparison over the last 14 days of `calendar`; `nil` when it holds fewer than 14 days.
    init?(calendar: [String], model: HTMLReportModel) {
        guard calendar.count >= 14 else { return nil }
        let days = Array(calendar.suffix(14))
        let earlier = Set(days.prefix(7))
        let later = Set(days.suffix(7))
        previous = (days[0], days[6])
        last = (days[7], days[13])
        changes = model.placements.map { placement in
            var change = Change(placement: placement, impressions: (0, 0), purchased: (0, 0))
            for day in model.daily(for: placement) {
                if earlier.contains(day.date) {
                    change.impressions.previous += day.impressions
                    change.purchased.previous += day.purchased
                } else if later.contains(day.date) {
                    change.impressions.last += day.impressions
                    change.purchased.last += day.purchased
                }
            }
            return change
        }
    }

    /// "likely a real change (p = 0.0123)" below 0.05, "could be noise (p = 0.4800)" otherwise.
    static func verdict(_ p: Double) -> String {
        let shown = p < 0.0001 ? "p < 0.0001" : ("p = " + FixedPoint.string(p, decimals: 4))
        return p < 0.05 ? "likely a real change (\(shown))" : "could be noise (\(shown))"
    }
}
