import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// A real process killed with SIGKILL while its paywall is on screen: the next start of the library on
/// the store closes the presentation as abandoned with the visible time of its last checkpoint; while
/// that process still runs, another process on the store leaves its paywall alone.
struct AbandonedPresentationKillTests {
    static let start: Int64 = 1_764_400_000_000

    struct StoredEvent: Equatable {
        var name: String
        var occurredAt: Int64
        var catalogVersion: Int64
        var result: String?
        var via: String?
        var openS: Double?
        var product: String?
    }

    static func events(of pwID: String, in path: String) throws -> [StoredEvent] {
        let connection = try Schema.open(path: path)
        return try connection.all(
            "SELECT name, occurred_at, catalog_version, result, via, open_s, product FROM events WHERE pw_id = ?1 ORDER BY seq",
            [.text(pwID)]
        ) {
            StoredEvent(
                name: $0.string(at: 0) ?? "", occurredAt: $0.int64(at: 1), catalogVersion: $0.int64(at: 2),
                result: $0.string(at: 3), via: $0.string(at: 4), openS: $0.double(at: 5), product: $0.string(at: 6))
        }
    }

    static func openRows(in path: String) throws -> Int64 {
        try Schema.open(path: path).scalar("SELECT count(*) FROM open_presentations")?.int64 ?? -1
    }

    @Test func aPaywallOnScreenWhenTheProcessIsKilledIsClosedAsAbandonedAtTheNextStart() async throws {
        // Given a child process with a paywall on screen for 7 s (plan selected at 3 s), checkpointed
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let db = folder.path("app.sqlite")
        let child = try ChildProcess(
            ["paywall-open", db, String(Self.start)], errorsTo: folder.url.appendingPathComponent("child.err"))
        let line = await child.readLine()
        let words = line.split(separator: " ").map(String.init)
        try #require(words.count == 3 && words[0] == "checkpoint", "the child said \(line): \(child.stderrText)")
        let pwID = words[1]
        #expect(words[2] == "7.0")
        // When the library starts in a second process while the child still runs
        let second = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off), now: .constant(Self.start + 60_000))
        // Then the child's paywall is left alone
        #expect(second.recovery.leftToLiveOwners == 1)
        #expect(second.recovery.abandoned == 0)
        try await second.shutdown()
        #expect(try Self.events(of: pwID, in: db).filter { $0.name == "paywall_closed" }.isEmpty)
        #expect(try Self.openRows(in: db) == 1)

        // When the child is killed with SIGKILL and the library starts again on the store
        child.kill()
        await child.waitForExit()
        #expect(child.process.terminationReason == .uncaughtSignal)
        #expect(child.process.terminationStatus == SIGKILL)
        let relaunch = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off), now: .constant(Self.start + 120_000))
        let recovery = relaunch.recovery
        try await relaunch.shutdown()

        // Then the presentation is closed once, as abandoned, with the 7 s it was on screen, the plan
        // selected, dated at its checkpoint; its impression (due at 1 s) is stored once
        #expect(recovery.abandoned == 1)
        let events = try Self.events(of: pwID, in: db)
        let closes = events.filter { $0.name == "paywall_closed" }
        #expect(
            closes == [
                StoredEvent(
                    name: "paywall_closed", occurredAt: Self.start + 7_000, catalogVersion: 2, result: "dismissed",
                    via: "abandoned", openS: 7.0, product: "pro_annual")
            ])
        #expect(events.filter { $0.name == "paywall_shown" }.map(\.occurredAt) == [Self.start + 1_000])
        #expect(events.filter { $0.name == "paywall_plan_selected" }.count <= 1, "buffered, so it may be lost")
        #expect(try Self.openRows(in: db) == 0)

        // And a further start changes nothing
        let third = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off), now: .constant(Self.start + 180_000))
        #expect(third.recovery == PresentationJournalTable.Recovery())
        try await third.shutdown()
        #expect(try Self.events(of: pwID, in: db) == events)
    }

    @Test func aPaywallOnScreenIsCheckpointedEveryIntervalAndNotWhileHidden() async throws {
        // Given a paywall on screen with a 5 s checkpoint interval, on a manual clock
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let db = folder.path("app.sqlite")
        let clock = ManualClock()
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off, checkpointInterval: .seconds(5)),
            clock: clock, now: .constant(Self.start))
        let paywall = try analytics.tracker.open(source: "onboarding", userID: "u1")
        paywall.appeared()
        let store = analytics.recorder.store.connection
        func visible() throws -> Double? {
            try store.scalar(
                "SELECT visible_s FROM open_presentations WHERE pw_id = ?1", [.text(paywall.pwID.uuidString)])?.double
        }
        /// Waits for the checkpoint task to write `seconds`.
        func waitForVisible(_ seconds: Double) async throws {
            _ = try await Eventually.holds { try visible() == seconds }
        }
        #expect(try visible() == 0)
        // When 5 s and then 10 s pass on screen, Then the saved visible time follows
        clock.advance(by: .seconds(5))
        try await waitForVisible(5)
        #expect(try visible() == 5)
        clock.advance(by: .seconds(5))
        try await waitForVisible(10)
        #expect(try visible() == 10)
        // When it is hidden for a minute, Then hidden time is not saved as visible
        paywall.disappeared()
        clock.advance(by: .seconds(60))
        #expect(try visible() == 10)
        paywall.close(.dismissed(via: .closeButton))
        try await analytics.flush()
        #expect(try visible() == nil, "the state of a closed paywall goes once its close is durable")
        try await analytics.shutdown()
    }

    @Test func aPaywallLeftOpenAtShutdownIsClosedAsAbandonedByTheNextInstance() async throws {
        // Given a paywall on screen for 2.5 s, with a manual clock, when the facade shuts down
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let db = folder.path("app.sqlite")
        let clock = ManualClock()
        let origin = clock.now
        let now = Now { Self.start + origin.duration(to: clock.now).components.seconds * 1000 }
        let first = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off, checkpointInterval: .seconds(1)),
            clock: clock, now: now)
        let paywall = try first.tracker.open(source: "onboarding", userID: "u1")
        paywall.appeared()
        clock.advance(by: .milliseconds(2_500))
        first.tracker.checkpoint()
        try await first.shutdown()
        // When the library starts again in this process
        let next = try PaywallAnalytics(
            configuration: .init(databasePath: db, forwarding: .off), now: .constant(Self.start + 10_000))
        try await next.shutdown()
        // Then it is closed as abandoned with 2.5 s
        #expect(next.recovery.abandoned == 1)
        let closes = try Self.events(of: paywall.pwID.uuidString, in: db).filter { $0.name == "paywall_closed" }
        #expect(closes.map(\.via) == ["abandoned"])
        #expect(closes.map(\.openS) == [2.5])
    }
}
