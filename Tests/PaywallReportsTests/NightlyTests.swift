import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct NightlyTests {
    static let now = ReportFixture.day5 + 3_600_000

    func runJSON(_ folder: TemporaryDirectory) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.url.appendingPathComponent("out/run.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theFirstRunWritesAllHistoryAndRunJSON() throws {
        // Given the fixture store and "now" one hour into 2026-11-05
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = FunnelReport(
            connection: try ReportFixture.makeStore(at: folder.path("db")), now: .constant(Self.now))
        // When the nightly job runs for all history
        let run = try reports.nightly(into: folder.path("out"), version: "1.2.3")
        // Then the CSVs equal the hand-worked golden files and run.json describes the run
        for file in ReportFile.all.map(\.fileName) { try expectGolden("utc", file, in: folder.path("out")) }
        #expect(run.daysRecomputed == ["2026-11-01", "2026-11-02", "2026-11-04", "2026-11-05"])
        #expect(run.eventsRead == Int64(ReportFixture.events.count))
        let json = try runJSON(folder)
        #expect(json["events_read"] as? Int == ReportFixture.events.count)
        #expect(json["input_watermark"] as? Int == ReportFixture.events.count)
        #expect(json["version"] as? String == "1.2.3")
        #expect(json["days_recomputed"] as? [String] == run.daysRecomputed)
        #expect(json["duration_ms"] != nil)
    }

    @Test func aRunReportsItsStagesInOrderWithTheirTimes() throws {
        // Given the fixture store and an observer of the run's stages
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        final class Seen: @unchecked Sendable {
            // @unchecked Sendable: `stages` is only touched under `lock`.
            let lock = NSLock()
            var stages: [ReportStage] = []
        }
        let seen = Seen()
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        _ = try SubscriptionFixture.openStore(path: folder.path("db"))  // with the subscription tables
        var reports = FunnelReport(connection: connection, now: .constant(Self.now))
        reports.onStage = { stage in seen.lock.withLock { seen.stages.append(stage) } }
        // When the nightly job runs
        let started = ContinuousClock.now
        _ = try reports.nightly(into: folder.path("out"), version: "1")
        let elapsed = ContinuousClock.now - started
        // Then every stage was reported once, in order, and their wall times add up to no more than the run's
        let stages = seen.lock.withLock { seen.stages }
        #expect(
            stages.map(\.name) == [
                "lease and marks", "rollup refresh", "subscription state: new events",
                "subscription state: changed presentations", "subscription state: fold",
                "subscription state: attribution", "subscription state: write", "day partials", "funnels",
                "subscriptions", "CSV files", "page", "run record",
            ])
        #expect(stages.allSatisfy { $0.seconds >= 0 && $0.cpuSeconds >= 0 })
        // And each stage's peak memory is the process's, never below the stage before's
        #expect(stages.allSatisfy { $0.peakMiB > 0 })
        #expect(zip(stages, stages.dropFirst()).allSatisfy { $0.peakMiB <= $1.peakMiB })
        let total = stages.reduce(0) { $0 + $1.seconds }
        #expect(total <= Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test func aRerunWithNoNewEventsChangesNothing() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
            into: folder.path("out"), version: "1")
        let before = try Data(contentsOf: folder.url.appendingPathComponent("out/run.json"))
        // When it runs again later with no new events
        let run = try FunnelReport(connection: connection, now: .constant(Self.now + 60_000))
            .nightly(into: folder.path("out"), version: "1")
        // Then no day is recomputed and no file changes
        #expect(run.daysRecomputed.isEmpty)
        #expect(run.eventsRead == 0)
        #expect(!run.outputsChanged)
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("out/run.json")) == before)
        for file in ReportFile.all.map(\.fileName) { try expectGolden("utc", file, in: folder.path("out")) }
    }

    @Test func lateEventsRecomputeExactlyTheirDays() throws {
        // Given a first nightly run
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let reports = FunnelReport(connection: connection, now: .constant(Self.now))
        try reports.nightly(into: folder.path("out"), version: "1")
        // When a late close arrives for unclosed P5 (day 1; abandoned: the library closed it at the app's next
        // start), and a late early event moves P19 from day 2 to day 1
        let h = ReportFixture.hour
        try ReportFixture.insert(
            [
                ReportFixture.closed(
                    0x30, ReportFixture.day1 + 14 * h + 10_000, "u3", 5, "onboarding", "dismissed",
                    "abandoned", 10.0),
                ReportFixture.step(
                    0x31, "paywall_plan_selected", ReportFixture.day1 + 23 * h, "u5", 19, "cohort", "pro.year"),
            ], into: connection)
        let run = try reports.nightly(into: folder.path("out"), version: "1")
        // Then exactly days 1 and 2 are recomputed, from the two new events; P5 is now a bounce
        // (dismissed, no purchase start) and its 10 s joins the open_s values [3, 7.25, 10, 12.5, 31]
        #expect(run.daysRecomputed == ["2026-11-01", "2026-11-02"])
        #expect(run.eventsRead == 2)
        let encounter = try String(contentsOfFile: folder.path("out/encounter_funnel.csv"), encoding: .utf8)
        #expect(encounter.contains("2026-11-01,cohort,3,3,0,2,1.0000\r\n"))
        #expect(!encounter.contains("2026-11-02,cohort,"))
        let conversion = try String(contentsOfFile: folder.path("out/conversion_funnel.csv"), encoding: .utf8)
        #expect(conversion.contains("2026-11-01,onboarding,5,1,2,2,0,1,0,0,2,1,0.4000,10.000,31.000,1,1\r\n"))
    }

    @Test func foldingInSmallChunksGivesTheSameReports() throws {
        // Given a rollup built one event per transaction (every event arrives "late")
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        var reports = FunnelReport(
            connection: try ReportFixture.makeStore(at: folder.path("db")), now: .constant(Self.now))
        reports.chunkSize = 1
        // When the nightly runs
        try reports.nightly(into: folder.path("out"), version: "1")
        // Then the outputs equal the single-pass golden files
        for file in ReportFile.all.map(\.fileName) { try expectGolden("utc", file, in: folder.path("out")) }
    }

    @Test func aSecondRunWhileOneIsInProgressIsBusyAndWritesNothing() throws {
        // Given another live run (this process, another token) holding the lease
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        try connection.run(
            "INSERT INTO meta (key, value) VALUES ('reports.lease', ?)",
            [
                .text(
                    "OTHER \(ProcessInfo.processInfo.processIdentifier) \(Self.now + 3_600_000) \(ProcessInfo.processInfo.hostName)"
                )
            ])
        // When a nightly run starts
        let error = #expect(throws: ReportError.self) {
            try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
                into: folder.path("out"), version: "1")
        }
        // Then it fails as busy and writes nothing
        guard case .busy = error else {
            Issue.record("expected busy, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out")))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func aLeaseLeftByAKilledProcessDoesNotBlock() throws {
        // Given a lease held by a process that was killed with SIGKILL
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/bin/sleep")
        victim.arguments = ["60"]
        try victim.run()
        let pid = victim.processIdentifier
        kill(pid, SIGKILL)
        victim.waitUntilExit()
        try connection.run(
            "INSERT INTO meta (key, value) VALUES ('reports.lease', ?)",
            [.text("DEAD \(pid) \(Self.now + 3_600_000) \(ProcessInfo.processInfo.hostName)")])
        // When a nightly run starts
        let run = try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
            into: folder.path("out"), version: "1")
        // Then it takes over and completes, and releases the lease
        #expect(run.eventsRead == Int64(ReportFixture.events.count))
        #expect(try connection.scalar("SELECT count(*) FROM meta WHERE key = 'reports.lease'")?.int64 == 0)
    }

    @Test func aFailureLeavesThePreviousOutputsIntact() throws {
        // Given a successful run, then a database change that makes a later report query fail
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportFixture.makeStore(at: folder.path("db"))
        try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
            into: folder.path("out"), version: "1")
        let before = try Data(contentsOf: folder.url.appendingPathComponent("out/run.json"))
        try ReportFixture.insert(
            [ReportFixture.shown(0x40, ReportFixture.day5 + 1000, "u1", 40, "late")], into: connection)
        try connection.execute("ALTER TABLE quarantine RENAME COLUMN quarantined_at TO moved_at")
        // When the nightly runs again
        let error = #expect(throws: ReportError.self) {
            try FunnelReport(connection: connection, now: .constant(Self.now)).nightly(
                into: folder.path("out"), version: "1")
        }
        #expect(
            { if case .storage(let storage) = error { storage.kind == .other } else { false } }(),
            "\(String(describing: error))")
        // Then the previous files are untouched and no staging folder is left behind
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("out/run.json")) == before)
        for file in ReportFile.all.map(\.fileName) { try expectGolden("utc", file, in: folder.path("out")) }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func daysLimitsTheWindowToTheTrailingDays() throws {
        // Given "now" on 2026-11-05
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = FunnelReport(
            connection: try ReportFixture.makeStore(at: folder.path("db")), now: .constant(Self.now))
        // When the nightly writes the last 2 days
        let run = try reports.nightly(into: folder.path("out"), days: 2, version: "1")
        // Then only 2026-11-04 and 2026-11-05 are in the files
        #expect(run.windowFrom == "2026-11-04" && run.windowTo == "2026-11-05")
        let encounter = try String(contentsOfFile: folder.path("out/encounter_funnel.csv"), encoding: .utf8)
        #expect(
            encounter.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
                == ["2026-11-04,other,2,0,2,0,0.0000", "2026-11-05,late,1,1,0,1,1.0000"])
        #expect(throws: ReportError.invalidDays(0)) {
            try reports.nightly(into: folder.path("out2"), days: 0, version: "1")
        }
    }
}
