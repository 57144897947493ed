import Foundation
import PaywallCore
import Testing

/// `CivilDate` against Foundation's Gregorian calendar in UTC, and its two conversions against
/// each other.
struct CivilDateTests {
    @Test func knownDaysAreTheirDates() {
        #expect(CivilDate(daysSince1970: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSince1970: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(daysSince1970: 11_016) == CivilDate(year: 2000, month: 2, day: 29))
        #expect(CivilDate(year: 2026, month: 12, day: 6).daysSince1970 == 20_793)
        #expect(CivilDate(year: 0, month: 1, day: 1).daysSince1970 == -719_528)
        // A day past its month's end counts on into the next month
        #expect(
            CivilDate(year: 2026, month: 2, day: 30).daysSince1970
                == CivilDate(year: 2026, month: 3, day: 2).daysSince1970)
    }

    @Test func everyDayFrom1600To2400RoundTripsAndMatchesFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let first = CivilDate(year: 1600, month: 1, day: 1).daysSince1970
        let last = CivilDate(year: 2400, month: 12, day: 31).daysSince1970
        var previous = CivilDate(daysSince1970: first - 1)
        for days in first...last {
            let date = CivilDate(daysSince1970: days)
            #expect(date.daysSince1970 == days)
            // consecutive: the next day of the month, or the 1st of the next month or year
            let next =
                date.day == previous.day + 1 && date.month == previous.month
                || date.day == 1 && (date.month == previous.month + 1 || date.month == 1 && previous.month == 12)
            #expect(next, "\(previous) → \(date)")
            previous = date
            if days % 97 == 0 {
                let parts = calendar.dateComponents(
                    [.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
                #expect(parts.year == date.year && parts.month == date.month && parts.day == date.day, "\(date)")
            }
        }
    }
}
