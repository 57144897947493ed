/// Unix milliseconds as ISO 8601 UTC text with milliseconds, `2026-10-03T12:34:56.789Z`, without
/// `DateFormatter` or `Date`.
///
/// Design note (speed): `export events` writes two of these per row. A Foundation formatter costs
/// microseconds per call and allocates; this is integer arithmetic into 24 bytes on the stack
/// (``CivilDate``'s conversion of the proleptic Gregorian calendar, exact for every day of years
/// 0000 to 9999, before 1970 too). `ISOTimestampTests` checks it against
/// `ISO8601DateFormatter` over many values.
public enum ISOTimestamp {
    /// The bytes of one timestamp: `YYYY-MM-DDTHH:MM:SS.sssZ`.
    public static let length = 24

    /// The Unix milliseconds this formats: 0000-01-01T00:00:00.000Z through 9999-12-31T23:59:59.999Z.
    public static let supported: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// `milliseconds` as text, or `nil` outside ``supported`` (a year without four digits).
    public static func string(_ milliseconds: Int64) -> String? {
        withBytes(milliseconds) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of `milliseconds` as text (valid only during the call), or
    /// returns `nil` without calling it outside ``supported``.
    public static func withBytes<T>(_ milliseconds: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows
        -> T?
    {
        var writer = Writer()
        return try writer.withBytes(milliseconds, body)
    }

    /// Formats times one after the other, keeping the date's text from one call to the next: for
    /// times that mostly fall on the day of the one before (an export in time order), the date is
    /// converted once per day instead of once per time.
    public struct Writer {
        /// The day `text` holds the date of.
        private var day = Int64.min
        private var text: (UInt64, UInt64, UInt64) = (0, 0, 0)

        /// A writer with no day yet.
        public init() {}

        /// ``ISOTimestamp/withBytes(_:_:)``, with the date kept from the call before when the day is the same.
        public mutating func withBytes<T>(_ milliseconds: Int64, _ body: (UnsafeRawBufferPointer) throws -> T)
            rethrows -> T?
        {
            guard render(milliseconds) else { return nil }
            return try withUnsafeBytes(of: &text) { try body($0) }
        }

        /// ``withBytes(_:_:)`` for a `body` that returns nothing: `false`, without calling it, outside
        /// ``ISOTimestamp/supported``.
        ///
        /// Design note: not generic, so a caller in another module does not look up generic type
        /// metadata on every call (`withBytes` from the CSV export, twice per row: 1.5 % of the
        /// export's samples at 1M events).
        public mutating func write(_ milliseconds: Int64, to body: (UnsafeRawBufferPointer) -> Void) -> Bool {
            guard render(milliseconds) else { return false }
            withUnsafeBytes(of: &text) { body($0) }
            return true
        }

        /// Puts the text of `milliseconds` in ``text`` (the date only when the day changed); `false`
        /// outside ``ISOTimestamp/supported``.
        private mutating func render(_ milliseconds: Int64) -> Bool {
            guard supported.contains(milliseconds) else { return false }
            let dayMs: Int64 = 86_400_000
            var days = milliseconds / dayMs
            var inDay = milliseconds % dayMs
            if inDay < 0 {
                inDay += dayMs
                days -= 1
            }
            let sameDay = days == day
            day = days
            withUnsafeMutableBytes(of: &text) { raw in
                func put(_ value: Int64, _ digits: Int, at offset: Int) {
                    var value = value
                    for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                        raw[index] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                }
                if !sameDay {
                    let date = CivilDate(daysSince1970: Int(days))
                    put(Int64(date.year), 4, at: 0)
                    raw[4] = UInt8(ascii: "-")
                    put(Int64(date.month), 2, at: 5)
                    raw[7] = UInt8(ascii: "-")
                    put(Int64(date.day), 2, at: 8)
                    raw[10] = UInt8(ascii: "T")
                }
                put(inDay / 3_600_000, 2, at: 11)
                raw[13] = UInt8(ascii: ":")
                put(inDay / 60_000 % 60, 2, at: 14)
                raw[16] = UInt8(ascii: ":")
                put(inDay / 1000 % 60, 2, at: 17)
                raw[19] = UInt8(ascii: ".")
                put(inDay % 1000, 3, at: 20)
                raw[23] = UInt8(ascii: "Z")
            }
            return true
        }
    }
}
