import Foundation
import PaywallCore

/// The calendar days between two ISO dates (`YYYY-MM-DD`), both included: the x-axis of the page's
/// daily charts, so a day without data is a day on the axis (a gap in the line), never skipped.
enum CalendarDays {
    /// The most days an axis spans; a longer range keeps its last days (a safety bound: a report
    /// covers a few months at most).
    static let limit = 3_660

    /// Every day from `first` to `last`, both included; empty when either is not an ISO date or
    /// `last` is before `first`.
    static func from(_ first: String, to last: String) -> [String] {
        guard let start = ordinal(first), let end = ordinal(last), end >= start else { return [] }
        return (max(start, end - limit + 1)...end).map(date)
    }

    /// Days since 1970-01-01 of an ISO date (proleptic Gregorian), or `nil` when it is not one.
    static func ordinal(_ text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSince1970
        return date(days) == text ? days : nil  // refuses 2026-02-30
    }

    /// The ISO date of a day number (days since 1970-01-01).
    static func date(_ days: Int) -> String {
        let civil = CivilDate(daysSince1970: days)
        return String(format: "%04d-%02d-%02d", civil.year, civil.month, civil.day)
    }
}
