import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// Random traffic (out-of-order and late events, same-millisecond ties, second impressions and
/// closes, presentations without impressions, few customers so cohorts overlap): the native engine
/// and the SQL files must write byte-identical reports, in several time zones and with a filter.
struct EngineAgreementTests {
    static func randomStore(at path: String, seed: UInt64, context: Bool = true) throws -> Connection {
        let connection = try ReportSchema.open(path: path)
        try ReportFixture.insert(randomEvents(seed: seed, context: context), into: connection)
        return connection
    }

    /// 600 random presentations over six days from 2026-11-01, shuffled. With `context`, most events
    /// say where they came from (platform and app version by presentation, a few events of a
    /// presentation from elsewhere, so only the first event's counts); the rest are version 1 events.
    static func randomEvents(seed: UInt64, context: Bool = true) -> [ReportFixture.Event] {
        var random = SeededGenerator(seed: seed)
        var events: [ReportFixture.Event] = []
        var id = 1
        let sources = ["onboarding", "settings", "=x", "Ünï, \"q\"", "a", "b"]
        for pw in 1...600 {
            let base =
                ReportFixture.day1 + Int64(random.below(6 * 24)) * ReportFixture.hour + Int64(random.below(3_600_000))
            let user = "u\(random.below(40))"
            let source = sources[random.below(sources.count)]
            func at() -> Int64 { base + Int64(random.below(4)) * Int64(random.below(100_000)) }
            // Offerings drawn from the event id (not the generator, so the other draws stay as they were).
            func offering() -> String? { ["A", "B", nil, "Ä", "A"][id % 5] }
            if random.below(10) < 8 {
                events.append(ReportFixture.shown(id, at(), user, pw, source, offering: offering()))
                id += 1
            }
            if random.below(10) < 2 {
                events.append(ReportFixture.shown(id, at(), user, pw, source, offering: offering()))
                id += 1
            }
            if random.below(10) < 4 {
                events.append(
                    ReportFixture.step(id, "paywall_plan_selected", at(), user, pw, source, "p\(random.below(3))"))
                id += 1
            }
            if random.below(10) < 3 {
                events.append(ReportFixture.step(id, "paywall_purchase_started", at(), user, pw, source, "p1"))
                id += 1
            }
            for _ in 0..<random.below(3) {
                let results = [
                    ("purchased", "auto"), ("restored", "auto"), ("dismissed", "close_button"),
                    ("dismissed", "continue_free"), ("dismissed", "gesture"), ("dismissed", "abandoned"),
                ]
                let (result, via) = results[random.below(results.count)]
                events.append(
                    ReportFixture.closed(
                        id, at(), user, pw, source, result, via, Double(random.below(60_000)) / 1000,
                        product: result == "purchased" ? "p\(random.below(3))" : nil))
                id += 1
            }
        }
        if context {
            // Drawn from the ids (not the generator, so the other draws stay as they were).
            for index in events.indices {
                let (pw, id) = (events[index].pw, events[index].id)
                events[index].platform = id % 13 == 0 ? "android" : [nil, "ios", "android", "ios", "web"][pw % 5]
                events[index].appVersion = id % 11 == 0 ? "3.3.0" : [nil, "3.2.0", "3.3.0"][pw % 3]
            }
        }
        events.shuffle(using: &random)
        return events
    }

    @Test(arguments: [
        ("UTC", [String]()), ("America/New_York", []), ("Asia/Kolkata", []), ("Australia/Lord_Howe", []),
        ("UTC", ["=x", "Ünï, \"q\""]),
    ])
    func theNativeEngineAndTheSQLFilesAgree(_ timezone: String, _ placements: [String]) throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try Self.randomStore(at: folder.path("db"), seed: 7)
        var reports = FunnelReport(connection: connection, now: .constant(0))
        reports.chunkSize = 97
        for engine in ReportEngine.allCases {
            reports.engine = engine
            try reports.report(
                from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"),
                placements: placements.isEmpty ? nil : placements, timezone: timezone,
                cohortWindow: try CohortWindow(parsing: "36h"), into: folder.path(engine.rawValue))
        }
        for file in ReportFile.all.map(\.fileName) {
            let native = try String(contentsOfFile: folder.path("native/\(file)"), encoding: .utf8)
            let sql = try String(contentsOfFile: folder.path("sql/\(file)"), encoding: .utf8)
            #expect(native == sql, "\(file): native vs SQL\n\(unifiedDiff(expected: sql, actual: native))")
            #expect(native.components(separatedBy: "\r\n").count > 2, "\(file) should have data rows")
        }
        // The page too, byte for byte: it is drawn from these files and from the offering trends,
        // which the native engine counts from its scan and the SQL engine with reports/offering_trends.sql
        let nativePage = try String(contentsOfFile: folder.path("native/\(HTMLReport.fileName)"), encoding: .utf8)
        let sqlPage = try String(contentsOfFile: folder.path("sql/\(HTMLReport.fileName)"), encoding: .utf8)
        #expect(
            nativePage == sqlPage, "report.html: native vs SQL\n\(unifiedDiff(expected: sqlPage, actual: nativePage))")
        let trends = HTMLOfferingTrendsTests.trendTitles(sqlPage)
        #expect(trends.count >= 4 && trends.values.allSatisfy { !$0.isEmpty }, "\(trends.keys.sorted())")
    }

    /// The same events with a context on some: catalog version 2 events (their via of version 1 or
    /// 2) with every, some or none of the context fields, beside version 1 events without one. The
    /// context says where an event came from; it changes no number of any report.
    @Test(arguments: [("UTC", [String]()), ("America/New_York", ["=x", "Ünï, \"q\""])])
    func aStoreOfMixedVersionOneAndTwoEventsReportsTheSameNumbers(_ timezone: String, _ placements: [String])
        throws
    {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let plain = try Self.randomStore(at: folder.path("plain.sqlite"), seed: 11, context: false)
        let mixed = try Self.randomStore(at: folder.path("mixed.sqlite"), seed: 11, context: false)
        let changed = try mixed.run(
            """
            UPDATE events SET catalog_version = 2,
              app_version = CASE seq % 3 WHEN 0 THEN '3.2.0' WHEN 1 THEN '3.3.0' END,
              build = CASE WHEN seq % 4 = 0 THEN '412' END,
              platform = CASE seq % 5 WHEN 0 THEN 'ios' WHEN 1 THEN 'android' WHEN 2 THEN 'web' END,
              os_version = '17.4', sdk_version = '0.1.0', locale = CASE WHEN seq % 2 = 0 THEN 'pt-BR' END
            WHERE seq % 7 <> 0
            """)
        #expect(changed > 0)
        #expect(try mixed.scalar("SELECT count(*) FROM events WHERE catalog_version = 1")?.int64 ?? 0 > 0)
        for (name, connection) in [("plain", plain), ("mixed", mixed)] {
            var reports = FunnelReport(connection: connection, now: .constant(0))
            reports.chunkSize = 89
            for engine in ReportEngine.allCases {
                reports.engine = engine
                try reports.report(
                    from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-06"),
                    placements: placements.isEmpty ? nil : placements, timezone: timezone,
                    cohortWindow: try CohortWindow(parsing: "3d"), into: folder.path("\(name)-\(engine.rawValue)"))
            }
        }
        for file in ReportFile.all.map(\.fileName) {
            let reference = try String(contentsOfFile: folder.path("plain-sql/\(file)"), encoding: .utf8)
            // Only segments.csv splits by the context; both engines agree on it for either store
            let runs =
                file == ReportFile.segments.fileName ? ["plain-native"] : ["plain-native", "mixed-sql", "mixed-native"]
            if file == ReportFile.segments.fileName {
                let sql = try String(contentsOfFile: folder.path("mixed-sql/\(file)"), encoding: .utf8)
                let native = try String(contentsOfFile: folder.path("mixed-native/\(file)"), encoding: .utf8)
                #expect(native == sql)
                #expect(sql != reference, "the mixed store's segments split by platform and app version")
            }
            for run in runs {
                let text = try String(contentsOfFile: folder.path("\(run)/\(file)"), encoding: .utf8)
                #expect(text == reference, "\(run)/\(file)\n\(unifiedDiff(expected: reference, actual: text))")
            }
        }
        // And segments.csv equals the reference recomputed with pandas from the raw events (UTC range only:
        // the checker takes the range as milliseconds)
        if timezone == "UTC" && placements.isEmpty {
            for name in ["plain", "mixed"] {
                let (status, output, errors) = try runPython(
                    "segments_check.py",
                    [
                        folder.path("\(name).sqlite"), folder.path("\(name)-sql/segments.csv"),
                        String(ReportFixture.day1), String(ReportFixture.day1 + 6 * 24 * ReportFixture.hour),
                    ])
                #expect(status == 0, "segments_check.py failed (\(Python.installAdvice)):\n\(output)\(errors)")
            }
        }
    }
}

/// Reproducible random fixtures: the shared seeded generator plus the draws these tests use.
extension SeededGenerator {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
