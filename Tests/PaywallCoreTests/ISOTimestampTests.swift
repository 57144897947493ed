import Foundation
import PaywallCore
import Testing

/// ``ISOTimestamp`` (the export's hand-written formatter) against Foundation's `ISO8601DateFormatter`.
struct ISOTimestampTests {
    /// Foundation's formatters, made once per test (making one costs far more than using it).
    final class Reference {
        let seconds = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()

        init() {
            seconds.timeZone = TimeZone(identifier: "UTC")
            fractional.timeZone = TimeZone(identifier: "UTC")
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }

        /// Foundation's text of the whole second of `milliseconds` (`2026-10-03T12:34:56Z`).
        func wholeSecond(_ milliseconds: Int64) -> String {
            let floor = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            return seconds.string(from: Date(timeIntervalSince1970: Double(floor)))
        }

        /// The milliseconds Foundation reads back from `text` (fractional seconds on).
        func milliseconds(_ text: String) -> Int64? {
            fractional.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        }

        /// Checks one value: the date and time of day agree with Foundation to the second, the
        /// milliseconds are the value's own, and Foundation reads the text back as the same instant.
        func check(_ value: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
            guard let text = ISOTimestamp.string(value) else {
                Issue.record("no text for \(value)", sourceLocation: sourceLocation)
                return
            }
            let fraction = ((value % 1000) + 1000) % 1000
            #expect(text.utf8.count == ISOTimestamp.length, sourceLocation: sourceLocation)
            #expect(
                text == String(wholeSecond(value).dropLast()) + String(format: ".%03dZ", fraction),
                "\(value)", sourceLocation: sourceLocation)
            #expect(milliseconds(text) == value, "\(value): \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func knownInstantsIncludingLeapDaysAndBefore1970() {
        #expect(ISOTimestamp.string(0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTimestamp.string(-1) == "1969-12-31T23:59:59.999Z")
        #expect(ISOTimestamp.string(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(ISOTimestamp.string(1_791_109_696_789) == "2026-10-04T10:28:16.789Z")
        #expect(ISOTimestamp.string(4_107_542_399_999) == "2100-02-28T23:59:59.999Z")
        #expect(ISOTimestamp.string(4_107_542_400_000) == "2100-03-01T00:00:00.000Z")  // 2100 is no leap year
        #expect(ISOTimestamp.string(ISOTimestamp.supported.upperBound) == "9999-12-31T23:59:59.999Z")
        #expect(ISOTimestamp.string(ISOTimestamp.supported.lowerBound) == "0000-01-01T00:00:00.000Z")
        #expect(ISOTimestamp.string(ISOTimestamp.supported.upperBound + 1) == nil)
        #expect(ISOTimestamp.string(ISOTimestamp.supported.lowerBound - 1) == nil)
        #expect(ISOTimestamp.string(.min) == nil && ISOTimestamp.string(.max) == nil)
    }

    @Test func agreesWithFoundationAroundEveryLeapDayAndYearEndFrom1900To2400() {
        // Every Feb 28 / Feb 29 / Mar 1 and Dec 31 / Jan 1 boundary, a millisecond either side
        let reference = Reference()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for year in 1900...2400 {
            for (month, day) in [(2, 28), (3, 1), (12, 31), (1, 1)] {
                let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
                let midnight = Int64((date.timeIntervalSince1970 * 1000).rounded())
                for offset: Int64 in [-86_400_001, -1, 0, 1, 43_200_123, 86_399_999] {
                    reference.check(midnight + offset)
                }
            }
        }
    }

    @Test func agreesWithFoundationOnManySpreadValues() {
        // A fixed-seed walk over 1583 (the first whole Gregorian year Foundation formats without the
        // Julian switch) to 9999, both signs of the Unix epoch included
        let reference = Reference()
        var generator = SplitMix(seed: 0x5EED_1234)
        let low: Int64 = -12_212_553_600_000  // 1583-01-01T00:00:00Z
        let high = ISOTimestamp.supported.upperBound
        for _ in 0..<20_000 {
            reference.check(low + Int64(generator.next() % UInt64(high - low)))
        }
    }

    @Test func aWriterKeepingTheDayWritesWhatEachCallAloneWrites() {
        // Times mostly a few seconds apart (the day kept from the call before), some jumping days
        // back and forth, across midnight and the epoch, and some outside the supported range
        var generator = SplitMix(seed: 0xDA7E)
        var time: Int64 = -86_400_000 * 2
        var times: [Int64] = []
        for step in 0..<50_000 {
            time += Int64(generator.next() % 20_000)
            times.append(time)
            if step % 997 == 0 { times.append(time - 86_400_000 * Int64(generator.next() % 400)) }
        }
        times += [ISOTimestamp.supported.upperBound + 1, time, ISOTimestamp.supported.lowerBound, time]
        var writer = ISOTimestamp.Writer()
        var writing = ISOTimestamp.Writer()
        var kept = 0
        for value in times {
            let alone = ISOTimestamp.withBytes(value) { Array($0) }
            let viaWriter = writer.withBytes(value) { Array($0) }
            #expect(viaWriter == alone, "\(value)")
            // and the form that returns nothing (a second writer, its own day kept)
            var written: [UInt8]?
            let wrote = writing.write(value) { written = Array($0) }
            #expect(wrote == (alone != nil) && written == alone, "\(value)")
            if alone != nil { kept += 1 }
        }
        #expect(kept == times.count - 1)
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
