import Foundation

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
        // Days from civil (H. Hinnant's algorithm), exact for every Gregorian date.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return date(days) == text ? days : nil  // refuses 2026-02-30
    }

    /// The ISO date of a day number (days since 1970-01-01).
    static func date(_ days: Int) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}
