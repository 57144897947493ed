/// A day of the proleptic Gregorian calendar and its number of days since 1970-01-01: the one
/// conversion the export's ISO timestamps and the report's calendar axis share (no `Calendar`, no
/// `Date`: integer arithmetic, exact for every day, before 1970 too; the days-from-civil
/// algorithm and its inverse).
public struct CivilDate: Sendable, Hashable {
    /// The year (0 is 1 BC).
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int

    /// The date `days` days after 1970-01-01 (negative: before it).
    public init(daysSince1970 days: Int) {
        let shiftedDays = days + 719_468  // days since 0000-03-01
        let era = (shiftedDays >= 0 ? shiftedDays : shiftedDays - 146_096) / 146_097
        let dayOfEra = shiftedDays - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Creates the date as given (not checked: see ``daysSince1970``).
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01. A day past its month's end counts on into the next month (2026-02-30
    /// is 2026-03-02): compare `CivilDate(daysSince1970:)` of the result to refuse it.
    public var daysSince1970: Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
