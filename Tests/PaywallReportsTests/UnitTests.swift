import Foundation
import PaywallCore
import PaywallSimulation
import PaywallTestSupport
import Testing

@testable import PaywallReports

struct CSVWriterTests {
    func render(_ cells: [CSVWriter.Cell], guarded: Bool = true) throws -> String {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let descriptor = open(folder.path("x.csv"), O_CREAT | O_WRONLY, 0o644)
        var writer = CSVWriter(descriptor: descriptor, path: "x.csv", formulaGuard: guarded)
        try writer.writeRow(cells)
        try writer.flush()
        close(descriptor)
        return try String(contentsOfFile: folder.path("x.csv"), encoding: .utf8)
    }

    @Test(arguments: [
        ("plain", "plain\r\n"), ("=1+2", "'=1+2\r\n"), ("+1", "'+1\r\n"), ("-1", "'-1\r\n"), ("@SUM", "'@SUM\r\n"),
        ("\tx", "'\tx\r\n"), ("\rx", "\"'\rx\"\r\n"), ("a,b", "\"a,b\"\r\n"), ("say \"hi\"", "\"say \"\"hi\"\"\"\r\n"),
        ("line\nbreak", "\"line\nbreak\"\r\n"), ("=a,\"b\"", "\"'=a,\"\"b\"\"\"\r\n"), ("<script>", "<script>\r\n"),
        ("Ünïcødé 🚀", "Ünïcødé 🚀\r\n"), ("", "\r\n"),
    ])
    func textCellsAreQuotedAndGuarded(_ input: String, _ expected: String) throws {
        #expect(try render([.text(input)]) == expected)
    }

    @Test(arguments: ["plain", "=1+2", "-1", "@x", "\tx", "\rx", "a,b", "say \"hi\"", "l\nb", "=a,\"b\"", "Ünï 🚀", ""])
    func byteCellsMatchStringCells(_ input: String) throws {
        let viaString = try render([.text(input)])
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let descriptor = open(folder.path("b.csv"), O_CREAT | O_WRONLY, 0o644)
        var writer = CSVWriter(descriptor: descriptor, path: "b.csv")
        var copy = input
        copy.withUTF8 { writer.text(bytes: UnsafeRawBufferPointer($0)) }
        try writer.endRecord()
        try writer.flush()
        close(descriptor)
        #expect(try String(contentsOfFile: folder.path("b.csv"), encoding: .utf8) == viaString)
    }

    @Test func rawOutputKeepsFormulasAndNumbersAreNeverGuarded() throws {
        #expect(try render([.text("=1+2"), .text("-x")], guarded: false) == "=1+2,-x\r\n")
        #expect(try render([.number("-1.5000"), .empty, .number("3")]) == "-1.5000,,3\r\n")
    }

    @Test func integersAreWrittenExactly() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let descriptor = open(folder.path("x.csv"), O_CREAT | O_WRONLY, 0o644)
        var writer = CSVWriter(descriptor: descriptor, path: "x.csv")
        for value: Int64 in [0, 7, -42, 1_793_491_200_000, .max, .min] { writer.integer(value) }
        try writer.endRecord()
        try writer.flush()
        close(descriptor)
        #expect(
            try String(contentsOfFile: folder.path("x.csv"), encoding: .utf8)
                == "0,7,-42,1793491200000,9223372036854775807,-9223372036854775808\r\n")
    }

    /// Writes one record with `body` and returns the file's text.
    func record(_ body: (inout CSVWriter) -> Void) throws -> String {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let descriptor = open(folder.path("x.csv"), O_CREAT | O_WRONLY, 0o644)
        var writer = CSVWriter(descriptor: descriptor, path: "x.csv")
        body(&writer)
        try writer.endRecord()
        try writer.flush()
        close(descriptor)
        return try String(contentsOfFile: folder.path("x.csv"), encoding: .utf8)
    }

    @Test func floatsAreWrittenAsTheExportFormatsThem() throws {
        let values: [Double] = [0, -0.0, 1, 12.5, 0.1, -3.25, 1e15, 123_456_789_012_345, 1e-7, .infinity, 2.0 / 3.0]
        let written = try record { writer in for value in values { writer.real(value) } }
        #expect(written == values.map(Exporter.format).joined(separator: ",") + "\r\n")
        #expect(written.hasPrefix("0.0,0.0,1.0,12.5,0.1,-3.25,"))
    }

    @Test func floatsOfAtMostThreeDecimalsAreWrittenAsDescriptionWritesThem() throws {
        // Thousandths (the fast path) of every size up to 1e12, both signs, and doubles near them
        // that are not thousandths (the slow path)
        var generator = RevenueStatisticsTests.SplitMix(state: 0xF10A7)
        var values: [Double] = [0.001, -0.001, 0.5, 0.05, 0.005, 999.999, 1e12 - 0.001, -1e12 + 0.5, 0.1 + 0.2]
        for _ in 0..<20_000 {
            let magnitude = [10.0, 1e3, 1e6, 1e9, 1e12][Int(generator.next() % 5)]
            let thousandths = Double(Int64(generator.next() % UInt64(magnitude * 1000))) / 1000
            let value = generator.next() % 2 == 0 ? thousandths : -thousandths
            values += [value, value.nextUp, value.nextDown]
        }
        let written = try record { writer in for value in values { writer.real(value) } }
        let expected = values.map(Exporter.format).joined(separator: ",") + "\r\n"
        #expect(written == expected)
        if written != expected {
            let got = written.dropLast(2).split(separator: ",")
            for (value, text) in zip(values, got) where Exporter.format(value) != text {
                Issue.record("\(value): \(text) instead of \(Exporter.format(value))")
                break
            }
        }
    }

    @Test func fieldsWithACommaQuoteOrLineEndAnywhereAreQuoted() throws {
        // The quote scan reads eight bytes at a time: each special byte at every offset of fields
        // of 1 to 40 bytes, and bytes just above and below the scan's threshold
        for length in 1...40 {
            for offset in 0..<length {
                for special in [",", "\"", "\n", "\r", " ", "-", "+", "."] {
                    var bytes = Array(repeating: "a", count: length)
                    bytes[offset] = special
                    let field = bytes.joined()
                    let quoted = [",", "\"", "\n", "\r"].contains(special)
                    let body = field.replacingOccurrences(of: "\"", with: "\"\"")
                    let guarded = offset == 0 && ["-", "+", "\r"].contains(special) ? "'" : ""
                    let expected = (quoted ? "\"" + guarded + body + "\"" : guarded + body) + "\r\n"
                    #expect(try render([.text(field)]) == expected, "\(length) \(offset) \(special.debugDescription)")
                }
            }
        }
    }

    @Test func aFieldLongerThanTheBufferIsWrittenWhole() throws {
        // 300,000 bytes with a quote every 1,000: longer than the 64 KiB buffer, quoted and doubled.
        let long = String(repeating: String(repeating: "a", count: 999) + "\"", count: 300)
        let written = try record { writer in
            writer.integer(1)
            writer.text(long)
            writer.integer(2)
        }
        let quoted = "\"" + long.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        #expect(written == "1," + quoted + ",2\r\n")
    }

    @Test func verbatimFieldsAreNeitherQuotedNorGuarded() throws {
        let written = try record { writer in
            var time = "2026-10-03T12:34:56.789Z"
            time.withUTF8 { writer.verbatim(bytes: UnsafeRawBufferPointer($0)) }
            writer.empty()
            writer.text("-x")
        }
        #expect(written == "2026-10-03T12:34:56.789Z,,'-x\r\n")
    }
}

struct FormatTests {
    @Test(arguments: [
        (0.0, "0.0000"), (1.0, "1.0000"), (5.0 / 6.0, "0.8333"), (0.04325, "0.0432"), (2.0 / 3.0, "0.6667"),
    ])
    func ratesHaveFourDecimals(_ value: Double, _ expected: String) {
        #expect(ReportFormat.rate(value) == expected)
    }

    @Test func fixedPointWritesWhatStringFormatWrites() {
        // Given rounding ties (exact in binary and not), signs, zeros, small and huge magnitudes, the
        // special values and random values of the ranges the reports show
        var random = SeededGenerator(seed: 12)
        var values: [Double] = [
            0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.25, 0.125, 0.375, 0.04325, 0.00005, 0.99995, 1e-300, 5e-324, 123.456,
            99.95, 1e15, 1e22, 1e300, -1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan,
        ]
        values += (0..<2_000).map { _ in Double(random.below(2_000_001)) / 1_000_000 }
        values += (0..<500).map { _ in (Double(random.below(2_000_001)) - 1_000_000) / 7 }
        // When each is written with 0 to 4 decimals; Then the text is String(format:)'s, byte for byte
        for value in values {
            for decimals in 0...4 {
                #expect(
                    FixedPoint.string(value, decimals: decimals) == String(format: "%.\(decimals)f", value),
                    "\(value), \(decimals) decimals")
            }
        }
    }

    @Test func secondsHaveThreeDecimals() {
        #expect(ReportFormat.seconds(7.25) == "7.250")
        #expect(ReportFormat.seconds(31) == "31.000")
    }

    @Test(arguments: [("3d", Int64(259_200_000)), ("72h", 259_200_000), ("90m", 5_400_000), ("1500ms", 1500)])
    func cohortWindowsParse(_ text: String, _ milliseconds: Int64) throws {
        #expect(try CohortWindow(parsing: text).milliseconds == milliseconds)
    }

    @Test(arguments: ["", "3", "d", "-3d", "3 days", "0h"])
    func badCohortWindowsAreUsageErrors(_ text: String) {
        #expect(throws: ReportError.invalidDuration(text)) { try CohortWindow(parsing: text) }
    }
}

struct DayCalendarTests {
    @Test func dstChangesMakeDaysOf23And25Hours() throws {
        let newYork = try DayCalendar(timeZone: "America/New_York")
        let fall = try newYork.days(from: try ReportDate("2026-11-01"), through: try ReportDate("2026-11-01"))
        #expect(fall[0].endMs - fall[0].startMs == 25 * 3_600_000)
        #expect(fall[0].startMs == 1_793_491_200_000 + 4 * 3_600_000)
        let spring = try newYork.days(from: try ReportDate("2026-03-08"), through: try ReportDate("2026-03-08"))
        #expect(spring[0].endMs - spring[0].startMs == 23 * 3_600_000)
    }

    @Test func daysAreContiguousAndMapInstantsBack() throws {
        let calendar = try DayCalendar(timeZone: "Asia/Kathmandu")
        let days = try calendar.days(from: try ReportDate("2026-12-30"), through: try ReportDate("2027-01-02"))
        #expect(days.map(\.date.description) == ["2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02"])
        for (day, next) in zip(days, days.dropFirst()) { #expect(day.endMs == next.startMs) }
        for day in days {
            #expect(calendar.date(containing: day.startMs) == day.date)
            #expect(calendar.date(containing: day.endMs - 1) == day.date)
        }
    }

    @Test func aReversedRangeIsAUsageError() throws {
        #expect(throws: ReportError.invalidRange(from: "2026-11-02", to: "2026-11-01")) {
            try DayCalendar().days(from: try ReportDate("2026-11-02"), through: try ReportDate("2026-11-01"))
        }
    }
}

struct ReportQueriesTests {
    @Test func theEmbeddedSQLMatchesTheReportsFolder() throws {
        // The library embeds reports/*.sql (python3 reports/embed.py); this fails when they drift apart.
        let folder = Repository.root.appendingPathComponent("reports")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
        #expect(Set(files.map { String($0.dropLast(4)) }) == Set(ReportQueries.all.keys))
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let embedded = ReportQueries.all[String(file.dropLast(4))]
            #expect(
                embedded == text.trimmingCharacters(in: .newlines) || embedded.map { $0 + "\n" } == text,
                "reports/\(file) changed: run python3 reports/embed.py")
        }
    }

    @Test func namedParametersAreNumberedInOrderOfFirstAppearance() {
        let sql = "-- :not_me\nSELECT ':nor_me', :b, :a, :b FROM t WHERE x = :c"
        #expect(NamedParameters.names(in: sql) == ["b", "a", "c"])
    }
}

struct PercentileSelectionTests {
    @Test func selectionPicksTheSameNearestRankAsSorting() {
        // Given arrays of every small size and some large ones, with many repeated values
        var random = SeededGenerator(seed: 3)
        var cases: [[Double]] = (0...40).map { n in (0..<n).map { _ in Double(random.below(7)) / 4 } }
        cases += (0..<30).map { _ in
            (0..<(1_000 + random.below(5_000))).map { _ in Double(random.below(61_000)) / 1000 }
        }
        cases.append(Array(repeating: 2.5, count: 999))
        cases.append((0..<1_000).map(Double.init))
        cases.append((0..<1_000).map { Double(1_000 - $0) })
        for values in cases {
            for p in [1, 50, 90, 99, 100] {
                // When the rank is found by quickselect; Then it is the sorted array's value at that rank
                var scratch = values
                #expect(
                    PresentationScan.selectPercentile(&scratch, p) == PresentationScan.percentile(values.sorted(), p),
                    "n = \(values.count), p = \(p)")
            }
        }
    }
}

struct CohortBuildingBlockTests {
    @Test func theNearDayIndexEqualsTheBinarySearchAcrossDSTChanges() throws {
        // Given New York days around both 2026 DST changes (days of 23 and 25 hours) and UTC days
        for zone in ["America/New_York", "UTC", "Asia/Kolkata"] {
            let calendar = try DayCalendar(timeZone: zone)
            let days = try calendar.days(from: try ReportDate("2026-02-25"), through: try ReportDate("2026-11-10"))
            let starts = days.map(\.startMs)
            var random = SeededGenerator(seed: 11)
            var instants = days.flatMap { [$0.startMs, $0.startMs + 1, $0.endMs - 1] }
            instants += (0..<20_000).map { _ in
                starts[0] + Int64(random.below(Int(days[days.count - 1].endMs - starts[0])))
            }
            for ms in instants {
                // When the day is found from the 24-hour estimate; Then it is the binary search's day
                #expect(
                    PresentationScan.dayIndex(nearDay: ms, starts) == PresentationScan.dayIndex(ms, starts),
                    "\(zone) \(ms)")
            }
        }
    }

    @Test func purchasesAreGroupedByCustomerInTimeOrder() {
        // Given purchases in random order, one customer with many (the insertion sort's limit is 16),
        // customers without any, and one customer above the customers that have firsts
        var random = SeededGenerator(seed: 5)
        var purchases: [(user: UInt32, at: Int64)] = (0..<5_000).map { _ in
            (UInt32(random.below(900)), Int64(random.below(1_000_000)))
        }
        purchases += (0..<200).map { _ in (7, Int64(random.below(1_000_000))) }
        purchases.append((1_000, 5))
        // When they are grouped for 1,000 customers
        let grouped = PresentationScan.purchaseTimesByCustomer(purchases, customers: 1_000)
        // Then customer u's purchases are exactly theirs, ascending, and the customer at 1,000 is left out
        #expect(grouped.offsets.count == 1_001 && grouped.times.count == purchases.count - 1)
        for user in 0..<1_000 {
            let expected = purchases.filter { $0.user == UInt32(user) }.map(\.at).sorted()
            #expect(
                Array(grouped.times[grouped.offsets[user]..<grouped.offsets[user + 1]]) == expected, "customer \(user)")
        }
    }

    @Test func recordingADaysFirstsAtOnceEqualsRecordingThemOneByOne() {
        // Given firsts in no particular order, with placements beyond the initial stride and repeated pairs
        var random = SeededGenerator(seed: 9)
        let firsts = (0..<3_000).map { _ in
            DayPartial.CustomerFirst(
                user: UInt32(random.below(500)), placement: UInt32(random.below(20)),
                at: Int64(random.below(100_000)))
        }
        // When one table records them at once and another one by one, in two halves
        var atOnce = CustomerFirsts()
        var oneByOne = CustomerFirsts()
        atOnce.reserve(customers: 100, placements: 3)
        oneByOne.reserve(customers: 100, placements: 3)
        atOnce.record(Array(firsts[..<1_500]))
        atOnce.record(Array(firsts[1_500...]))
        for first in firsts { oneByOne.record(user: first.user, placement: Int(first.placement), at: first.at) }
        // Then every (customer, placement) has the same first impression
        for user in 0..<500 {
            for placement in 0..<20 {
                #expect(
                    atOnce.first(user: user, placement: placement) == oneByOne.first(user: user, placement: placement))
            }
        }
        #expect(atOnce.first(user: 0, placement: 25) == CustomerFirsts.none)
    }

    @Test func mergingTheDaysListsGivesEachPairsFirstLikeTheTable() {
        // Given 31 days' firsts lists as partials keep them (sorted by customer and placement, one
        // entry per pair and day), pairs repeated across days, some days empty, customers spread over
        // many blocks of the merge and a few pairs of a wide placement key
        var random = SeededGenerator(seed: 14)
        let days: [[DayPartial.CustomerFirst]] = (0..<31).map { day in
            guard day % 9 != 4 else { return [] }
            var pairs: [UInt64: Int64] = [:]
            for index in 0..<random.below(3_000) {
                let user = index % 3 == 0 ? random.below(300) : random.below(20_000)
                let key = UInt64(user) << 32 | UInt64(index % 500 == 7 ? 70 : random.below(11))
                pairs[key] = min(pairs[key] ?? .max, Int64(day * 86_400_000 + random.below(86_400_000)))
            }
            return pairs.keys.sorted().map {
                DayPartial.CustomerFirst(user: UInt32($0 >> 32), placement: UInt32($0 & 0xFFFF_FFFF), at: pairs[$0]!)
            }
        }
        // When one keeps the lists and another records them into its table
        var lists = CustomerFirsts()
        var table = CustomerFirsts()
        table.reserve(customers: 10, placements: 3)
        for day in days.shuffled(using: &random) {
            lists.record(
                list: PackedFirsts(sortedUnique: day.sorted { ($0.placement, $0.user) < ($1.placement, $1.user) }))
            table.record(day)
        }
        var merged: [(Int, Int, Int64)] = []
        var cells: [(Int, Int, Int64)] = []
        lists.forEachFirst { merged.append(($0, $1, $2)) }
        table.forEachFirst { cells.append(($0, $1, $2)) }
        // Then both give every pair once, in customer then placement order, with its earliest time
        #expect(merged.count == cells.count)
        #expect(zip(merged, cells).allSatisfy { $0 == $1 })
        #expect(lists.customerCount >= (merged.last?.0 ?? 0) + 1)
        // And a table that also holds lists gives the same pairs
        var both = CustomerFirsts()
        both.reserve(customers: 10, placements: 3)
        for day in days.prefix(15) { both.record(day) }
        for day in days.dropFirst(15) {
            both.record(
                list: PackedFirsts(sortedUnique: day.sorted { ($0.placement, $0.user) < ($1.placement, $1.user) }))
        }
        var mixed: [(Int, Int, Int64)] = []
        both.forEachFirst { mixed.append(($0, $1, $2)) }
        #expect(mixed.count == cells.count && zip(mixed, cells).allSatisfy { $0 == $1 })
    }
}
