import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct FunnelReportTests {
    static let files = ReportFile.all.map(\.fileName)

    func makeReports(_ folder: TemporaryDirectory, engine: ReportEngine = .native) throws -> FunnelReport {
        let connection = try ReportFixture.makeStore(at: folder.path("store.sqlite"))
        var reports = FunnelReport(connection: connection, now: .constant(ReportFixture.day5 + 3_600_000))
        reports.engine = engine
        return reports
    }

    @Test(arguments: ReportEngine.allCases)
    func everyReportMatchesTheHandWorkedGoldenFiles(_ engine: ReportEngine) throws {
        // Given the fixture store (every rule of funnels.md), with either engine
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder, engine: engine)
        // When reporting 2026-11-01…2026-11-05 in UTC
        let summary = try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"),
            into: folder.path("out"))
        // Then every file equals its golden file byte for byte
        #expect(summary.eventsRead == Int64(ReportFixture.events.count))
        for file in Self.files { try expectGolden("utc", file, in: folder.path("out")) }
    }

    @Test(arguments: ReportEngine.allCases)
    func aTimeZoneMovesAPresentationToTheLocalDay(_ engine: ReportEngine) throws {
        // Given P9 at 02:00Z on 2026-11-02, which is 21:00 on 2026-11-01 in New York (a 25-hour day)
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder, engine: engine)
        // When reporting both days in UTC and in America/New_York
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-02"), into: folder.path("utc"))
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-02"),
            timezone: "America/New_York", into: folder.path("ny"))
        // Then the presentation's row moves from 2026-11-02 to 2026-11-01
        let utc = try String(contentsOfFile: folder.path("utc/encounter_funnel.csv"), encoding: .utf8)
        let newYork = try String(contentsOfFile: folder.path("ny/encounter_funnel.csv"), encoding: .utf8)
        #expect(utc.contains("2026-11-02,'=SUM(A1),1,1,0,1,1.0000\r\n"))
        #expect(newYork.contains("2026-11-01,'=SUM(A1),1,1,0,1,1.0000\r\n"))
        #expect(!newYork.contains("2026-11-02,'=SUM(A1)"))
    }

    @Test(arguments: ReportEngine.allCases)
    func aRangeCountsEventsAfterItsEndAndFiltersPlacements(_ engine: ReportEngine) throws {
        // Given P8, which starts at 23:59:59 on day 1 and is purchased on day 2
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder, engine: engine)
        // When reporting day 1 only, for two placements
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-01"),
            placements: ["onboarding", "+plus"], into: folder.path("out"))
        // Then the day-2 purchase counts on day 1 and only the chosen placements appear
        let conversion = try String(contentsOfFile: folder.path("out/conversion_funnel.csv"), encoding: .utf8)
        #expect(
            conversion.split(separator: "\r\n").map(String.init) == [
                ReportFile.conversionFunnel.columns.joined(separator: ","),
                "2026-11-01,'+plus,0,0,0,0,0,0,0,0,0,0,,,,0,0",
                "2026-11-01,onboarding,5,1,2,2,0,1,0,1,1,1,0.4000,7.250,31.000,1,0",
            ])
    }

    @Test func theHTMLPageIsWrittenWithTheSameNumbersAndEscaped() throws {
        // Given the fixture, whose placements include markup and formulas
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder)
        // When reporting
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), version: "9.9.9",
            into: folder.path("out"))
        // Then report.html sits next to the CSVs, escapes event data and carries no script
        let html = try String(contentsOfFile: folder.path("out/report.html"), encoding: .utf8)
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script"))
        #expect(html.contains("2026-11-01 to 2026-11-05"))
        #expect(html.contains("9.9.9"))
    }

    @Test func rawOutputTurnsTheFormulaGuardOff() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder)
        try reports.report(
            from: try ReportDate("2026-11-02"), to: try ReportDate("2026-11-02"), formulaGuard: false,
            into: folder.path("out"))
        let encounter = try String(contentsOfFile: folder.path("out/encounter_funnel.csv"), encoding: .utf8)
        #expect(encounter.contains("\r\n2026-11-02,=SUM(A1),1,1,0,1,1.0000\r\n"))
        #expect(encounter.contains("\r\n2026-11-02,-minus,"))
    }

    @Test func aReportLeavesOtherFilesInTheFolderAlone() throws {
        // Given an output folder holding a user's file and an old report file
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder)
        try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: folder.url.appendingPathComponent("out/notes.txt"))
        try Data("old".utf8).write(to: folder.url.appendingPathComponent("out/product_mix.csv"))
        // When a report is written there
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        // Then the user's file is intact, the report files are replaced and no staging folder remains
        #expect(try String(contentsOfFile: folder.path("out/notes.txt"), encoding: .utf8) == "mine")
        try expectGolden("utc", "product_mix.csv", in: folder.path("out"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
            $0.hasPrefix(".")
        }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: ["2026-13-01", "2026-02-30", "20261101", "yesterday"])
    func badDatesAreUsageErrors(_ text: String) {
        #expect(throws: ReportError.invalidDate(text)) { try ReportDate(text) }
    }

    @Test func anUnknownTimeZoneIsAUsageError() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = try makeReports(folder)
        #expect(throws: ReportError.unknownTimeZone("Mars/Olympus")) {
            try reports.report(
                from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-02"),
                timezone: "Mars/Olympus", into: folder.path("out"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out")))
    }
}
