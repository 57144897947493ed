import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallAnalytics

/// What the facade does on the app's lifecycle events: the platform-independent part of the
/// observation (on Apple platforms each notification becomes one `handle(_:)` call).
struct AppLifecycleTests {
    let directory = TemporaryDirectory()

    func analytics(observes: Bool = true, tasks: Lock<[String]>) throws -> (PaywallAnalytics, ManualClock) {
        let clock = ManualClock()
        let now = Now { 1_764_400_000_000 + clock.now.offset.components.seconds * 1000 }
        let runner = BackgroundTaskRunner { name in
            tasks.withLock { $0.append("begin \(name)") }
            return { tasks.withLock { $0.append("end") } }
        }
        let analytics = try PaywallAnalytics(
            configuration: .init(
                databasePath: directory.path("app.sqlite"), forwarding: .off, observesAppLifecycle: observes),
            environment: [:], clock: clock, now: now, backgroundTasks: runner)
        return (analytics, clock)
    }

    @Test func theBackgroundSuspendsInsideABackgroundTaskAndTheForegroundResumes() async throws {
        // Given a paywall on screen for 2 s (its impression emitted, not yet committed)
        let tasks = Lock<[String]>([])
        let (analytics, clock) = try analytics(tasks: tasks)
        let paywall = try analytics.tracker.open(source: "onboarding", userID: "u1")
        paywall.appeared()
        clock.advance(by: .seconds(2))
        paywall.selectPlan("pro_annual")
        // When the app goes to the background
        let report = await analytics.handle(.didEnterBackground)
        // Then the paywall is off screen, everything is committed, inside one background task
        #expect(report?.committed == true)
        #expect(analytics.tracker.isSuspended)
        #expect(!paywall.isVisible)
        #expect(tasks.withLock { $0 } == ["begin PaywallAnalytics.suspend", "end"])
        let stored = try analytics.recorder.store.connection.scalar(
            "SELECT count(*) FROM events WHERE pw_id = ?1", [.text(paywall.pwID.uuidString)])?.int64
        #expect(stored == 2, "paywall_shown and paywall_plan_selected are on disk")
        // When it comes back
        #expect(await analytics.handle(.willEnterForeground) == nil)
        // Then the paywall is on screen again, and no other background task was asked for
        #expect(!analytics.tracker.isSuspended)
        #expect(paywall.isVisible)
        #expect(tasks.withLock { $0 }.count == 2)
        try await analytics.shutdown()
    }

    @Test func observationIsOnWhereThePlatformHasLifecycleNotificationsUnlessTurnedOff() async throws {
        let tasks = Lock<[String]>([])
        let (on, _) = try analytics(observes: true, tasks: tasks)
        #if canImport(UIKit) || canImport(AppKit)
            #expect(on.observesAppLifecycle)
        #else
            #expect(!on.observesAppLifecycle, "Linux has no app lifecycle notifications")
        #endif
        try await on.shutdown()
        #expect(!on.observesAppLifecycle, "shutdown stops observing")
        let (off, _) = try analytics(observes: false, tasks: tasks)
        #expect(!off.observesAppLifecycle)
        try await off.shutdown()
    }
}

/// Keys come from the environment only in command-line and server processes.
struct KeyEnvironmentTests {
    @Test func anAppReadsNoEnvironmentAndOtherProcessesReadTheirs() {
        let process = ["REVENUECAT_API_KEY": "appl_x", "PAYWALL_COLLECTOR_KEY": "k"]
        #expect(PaywallAnalytics.keyEnvironment(isApp: true, processEnvironment: process) == [:])
        #expect(PaywallAnalytics.keyEnvironment(isApp: false, processEnvironment: process) == process)
        #if os(Linux)
            // A Linux process is a command-line tool or a server: it reads its environment.
            #expect(PaywallAnalytics.keyEnvironment == ProcessInfo.processInfo.environment)
        #endif
    }
}
