import Foundation

/// A calendar date (`YYYY-MM-DD`), independent of any time zone.
public struct ReportDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, 1–31.
    public let day: Int

    /// Parses `YYYY-MM-DD`.
    ///
    /// - Throws: ``ReportError/invalidDate(_:)`` for anything else, including impossible dates;
    ///   ``ReportError/dateOutOfRange(_:)`` for a real date outside ``supportedYears``.
    public init(_ text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        // Five digits and more are years too (out of range), so `10000-01-01` is not called "not a date".
        guard parts.count == 3, (4...9).contains(parts[0].count), parts[0].allSatisfy({ ("0"..."9").contains($0) }),
            parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { throw ReportError.invalidDate(text) }
        self.init(year: year, month: month, day: day)
        guard Self.supportedYears.contains(year) else { throw ReportError.dateOutOfRange(text) }
        guard let noon = ReportDate.utcCalendar.date(from: components(hour: 12)),
            ReportDate(ReportDate.utcCalendar.dateComponents([.year, .month, .day], from: noon)) == self
        else { throw ReportError.invalidDate(text) }
    }

    /// The years reports cover: event times are Unix times (from 1970), and dates print as four digits.
    public static let supportedYears = 1970...9999
    /// 1970-01-01, the first day reports cover.
    public static let earliest = ReportDate(year: 1970, month: 1, day: 1)

    /// Creates a date from its parts (not validated).
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(_ components: DateComponents) {
        self.init(year: components.year ?? 0, month: components.month ?? 0, day: components.day ?? 0)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let y = String(abs(year))
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + m + "-" + d
    }

    /// Orders by calendar.
    public static func < (lhs: ReportDate, rhs: ReportDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The number of dates from this one through `last`, both included (0 when `last` is earlier).
    public func days(through last: ReportDate) -> Int {
        let calendar = ReportDate.utcCalendar
        guard let start = calendar.date(from: components(hour: 12)),
            let end = calendar.date(from: last.components(hour: 12)),
            let between = calendar.dateComponents([.day], from: start, to: end).day
        else { return 0 }
        return max(0, between + 1)
    }

    /// The next calendar date.
    public var next: ReportDate { adding(days: 1) }

    /// This date moved by `days` calendar days.
    public func adding(days: Int) -> ReportDate {
        let noon = ReportDate.utcCalendar.date(from: components(hour: 12))!
        let moved = ReportDate.utcCalendar.date(byAdding: .day, value: days, to: noon)!
        return ReportDate(ReportDate.utcCalendar.dateComponents([.year, .month, .day], from: moved))
    }

    func components(hour: Int) -> DateComponents {
        DateComponents(year: year, month: month, day: day, hour: hour)
    }

    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// One report day: its date and its half-open interval `[startMs, endMs)` of Unix milliseconds
/// in the report's time zone (23, 24 or 25 hours long around DST changes).
public struct ReportDay: Sendable, Hashable {
    /// The calendar date.
    public let date: ReportDate
    /// The first millisecond of the day.
    public let startMs: Int64
    /// The first millisecond of the next day.
    public let endMs: Int64
}

/// Turns dates and instants into report days in one time zone, DST-correct (Foundation's
/// `TimeZone`), so SQL only ever compares integers.
public struct DayCalendar: Sendable {
    /// The zone's identifier.
    public let timeZone: TimeZone
    private let calendar: Calendar

    /// A calendar for the IANA zone `identifier` (`"UTC"` by default).
    ///
    /// - Throws: ``ReportError/unknownTimeZone(_:)``.
    public init(timeZone identifier: String = "UTC") throws {
        guard let zone = TimeZone(identifier: identifier) else { throw ReportError.unknownTimeZone(identifier) }
        timeZone = zone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    /// The first millisecond of `date` in the zone (the first valid instant when midnight is skipped).
    public func startMs(of date: ReportDate) -> Int64 {
        let noon = calendar.date(from: date.components(hour: 12))!
        return Int64((calendar.startOfDay(for: noon).timeIntervalSince1970 * 1000).rounded())
    }

    /// The date that contains the instant `ms`.
    public func date(containing ms: Int64) -> ReportDate {
        let instant = Date(timeIntervalSince1970: Double(ms) / 1000)
        return ReportDate(calendar.dateComponents([.year, .month, .day], from: instant))
    }

    /// Every day from `from` through `to`, inclusive.
    ///
    /// - Throws: ``ReportError/invalidRange(from:to:)``, ``ReportError/unsupportedTimeZone(_:date:)``.
    public func days(from: ReportDate, through to: ReportDate) throws -> [ReportDay] {
        guard from <= to else { throw ReportError.invalidRange(from: from.description, to: to.description) }
        var days: [ReportDay] = []
        var date = from
        var start = startMs(of: date)
        while date <= to {
            let next = date.next
            let end = startMs(of: next)
            guard start % 900_000 == 0 else {
                throw ReportError.unsupportedTimeZone(timeZone.identifier, date: date.description)
            }
            days.append(ReportDay(date: date, startMs: start, endMs: end))
            date = next
            start = end
        }
        return days
    }

    /// The days as the JSON array the report SQL binds to `:days`: `[["YYYY-MM-DD", start, end], …]`.
    public static func json(_ days: [ReportDay]) -> String {
        "[" + days.map { "[\"\($0.date)\",\($0.startMs),\($0.endMs)]" }.joined(separator: ",") + "]"
    }
}
