import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// The facade in an app's lifecycle, on virtual time, over a real SQLite file.
struct LifecycleTests {
    let directory = TemporaryDirectory()

    /// The facade on a manual clock, with a wall clock that moves with it.
    func analytics(
        forwarding: PaywallAnalytics.Forwarding, retry: RetryPolicy = RetryPolicy(),
        messages: Lock<[String]> = Lock([])
    ) async throws -> (PaywallAnalytics, ManualClock) {
        let clock = ManualClock()
        let now = Now {
            1_764_400_000_000 + clock.now.offset.components.seconds * 1000
                + clock.now.offset.components.attoseconds / 1_000_000_000_000_000
        }
        let analytics = try PaywallAnalytics(
            configuration: .init(
                databasePath: directory.path("app/events.sqlite"), forwarding: forwarding,
                forwardingInterval: .seconds(3_600), retryPolicy: retry),
            environment: [:], clock: clock, now: now
        ) { message in messages.withLock { $0.append(message) } }
        if case .off = forwarding { return (analytics, clock) }
        // The loop's first pass runs at start; once it sleeps on the clock for its interval, only
        // the test's own calls forward. Two sleepers: the recorder's flush timer sleeps on the same
        // clock from the start, so one sleeper could be that timer alone while the loop's first pass
        // was still to run (under ThreadSanitizer and load it then forwarded the test's impression
        // before suspend's own pass, which found nothing to send).
        #expect(await clock.waitForSleepers(2))
        return (analytics, clock)
    }

    @Test func backgroundTimeIsNoDwellAndResumeShowsThePaywallAgain() async throws {
        // Given a paywall on screen for 0.6 s
        let (analytics, clock) = try await analytics(forwarding: .off)
        let paywall = try analytics.tracker.open(source: "onboarding", userID: "user_1")
        paywall.appeared()
        clock.advance(by: .milliseconds(600))
        // When the app goes to the background for a day, then comes back for 0.6 s
        let report = await analytics.suspend()
        #expect(report.committed && !paywall.isVisible)
        clock.advance(by: .seconds(86_400))
        analytics.resume()
        #expect(paywall.isVisible)
        clock.advance(by: .milliseconds(600))
        paywall.close(.dismissed(via: .closeButton))
        try await analytics.flush()
        // Then no impression was made: neither piece reached the 1 s dwell
        let names = try analytics.recorder.store.connection.all("SELECT name FROM events") { $0.string(at: 0) ?? "" }
        #expect(names == ["paywall_closed"])
        try await analytics.shutdown()
    }

    @Test func suspendCommitsThenHandsTheImpressionToTheAppsClosure() async throws {
        // Given the SDK route and a paywall on screen past its dwell time
        let handed = Lock<[CustomPaywallImpression]>([])
        let (analytics, clock) = try await analytics(
            forwarding: .closure { impression in
                handed.withLock { $0.append(impression) }
            })
        let paywall = try analytics.tracker.open(source: "settings", offeringID: "default", userID: "user_2")
        paywall.appeared()
        clock.advance(by: .seconds(2))
        // When the app goes to the background
        let report = await analytics.suspend()
        // Then the impression (emitted by the hide) is committed and handed over within the pass
        #expect(report.committed && !report.budgetExhausted)
        guard case .completed(let summary) = report.forwarding else {
            Issue.record("no pass: \(report)")
            return
        }
        #expect(summary.delivered == 1)
        #expect(handed.withLock { $0 }.map(\.paywallID) == ["settings"])
        #expect(try analytics.recorder.store.stats().outboxPending == 0)
        try await analytics.shutdown()
    }

    @Test func aThrowingClosureIsRetriedAfterItsBackoff() async throws {
        // Given a closure that throws twice (the SDK not configured yet), then returns
        struct NotConfigured: Error {}
        let calls = Lock(0)
        let (analytics, clock) = try await analytics(
            forwarding: .closure { _ in
                let call = calls.withLock { value -> Int in
                    value += 1
                    return value
                }
                if call <= 2 { throw NotConfigured() }
            }, retry: RetryPolicy(random: { 1 }))
        let paywall = try analytics.tracker.open(source: "home", userID: "user_3", impressionMode: .appReported)
        paywall.reportImpression()
        // When the app suspends twice with the wall clock past each backoff in between
        let first = await analytics.suspend()
        guard case .completed(let failed) = first.forwarding else {
            Issue.record("no pass")
            return
        }
        #expect(failed.willRetry == 1 && failed.delivered == 0)
        clock.advance(by: .seconds(2))
        let second = await analytics.suspend()
        guard case .completed(let failedAgain) = second.forwarding else { return }
        #expect(failedAgain.willRetry == 1)
        clock.advance(by: .seconds(4))
        let third = await analytics.suspend()
        // Then the third attempt delivers it
        guard case .completed(let delivered) = third.forwarding else { return }
        #expect(delivered.delivered == 1)
        #expect(calls.withLock { $0 } == 3)
        #expect(try analytics.recorder.store.stats().outboxPending == 0)
        try await analytics.shutdown()
    }

    @Test func suspendReturnsWithinItsBudgetWhenTheClosureHangs() async throws {
        // Given a closure that never returns on its own
        let started = Lock(false)
        let (analytics, clock) = try await analytics(
            forwarding: .closure { _ in
                started.withLock { $0 = true }
                try await Task.sleep(for: .seconds(3_600))
            })
        try analytics.tracker.open(source: "home", userID: "u", impressionMode: .appReported).reportImpression()
        // When the app suspends with a 2 s budget and 2 s pass on the clock
        let suspension = Task { await analytics.suspend(budget: .seconds(2)) }
        // (Advancing before suspend's budget timer sleeps on the clock would leave it asleep for good:
        // wait for the closure to run and for that timer, beside the forwarding loop's and the
        // recorder's flush timer's own sleeps.)
        let deadline = ContinuousClock.now.advanced(by: .seconds(600))
        while !started.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(started.withLock { $0 })
        #expect(await clock.waitForSleepers(3))
        clock.advance(by: .seconds(2))
        let report = await suspension.value
        // Then suspend gave up on forwarding (the impression stays pending) but had committed
        #expect(report.committed && report.budgetExhausted && report.forwarding == nil)
        #expect(try analytics.recorder.store.stats().outboxPending == 1)
        try await analytics.shutdown()
    }

    @Test func misuseGoesToDiagnosticsAndRedundantVisibilityDoesNot() async throws {
        let messages = Lock<[String]>([])
        let (analytics, _) = try await analytics(forwarding: .off, messages: messages)
        let paywall = try analytics.tracker.open(source: "home", userID: "u")
        paywall.appeared()
        paywall.appeared()
        paywall.close(.restored)
        paywall.disappeared()
        #expect(messages.withLock { $0 }.isEmpty)
        paywall.close(.restored)
        #expect(
            messages.withLock { $0 } == [
                "paywall tracker misuse: "
                    + TrackerError.alreadyClosed(pwID: paywall.pwID, attempted: "close()").description
            ])
        try await analytics.shutdown()
    }

    @Test func theStoreOpensInAFolderThatDoesNotExistYet() async throws {
        // Given a fresh app container: no Library, no Application Support
        let path = directory.path("container/Library/Application Support/PaywallAnalytics/events.sqlite")
        #expect(!FileManager.default.fileExists(atPath: directory.path("container")))
        // When the facade opens its store there and records
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: path, forwarding: .off), environment: [:])
        try analytics.tracker.open(source: "home", userID: "u", impressionMode: .appReported).reportImpression()
        try await analytics.flush()
        // Then the folders were made (0700) and the event is stored
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path("container/Library"))[
            .posixPermissions]
        #expect(mode as? Int == 0o700)
        #expect(try analytics.recorder.store.stats().totalEvents == 1)
        try await analytics.shutdown()
    }

    @Test func theDatabaseLocationFollowsXDGAndCreatesItsFolders() async throws {
        // Given XDG_DATA_HOME pointing at a folder that does not exist yet
        let data = directory.path("xdg/data")
        // When the location is asked for
        let path = try DatabaseLocation.applicationSupport(environment: ["XDG_DATA_HOME": data, "HOME": "/nonexistent"])
        // Then it is inside it, with the folder made private
        #expect(path == data + "/PaywallAnalytics/paywall-analytics.sqlite")
        let mode =
            try FileManager.default.attributesOfItem(atPath: data + "/PaywallAnalytics")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        // And without XDG_DATA_HOME (or with a relative one) it is ~/.local/share
        let home = directory.path("home")
        #expect(
            try DatabaseLocation.applicationSupport(
                fileName: "x.sqlite", environment: ["HOME": home, "XDG_DATA_HOME": "rel"])
                == home + "/.local/share/PaywallAnalytics/x.sqlite")
        #expect(throws: DatabaseLocationError.noHome) { try DatabaseLocation.applicationSupport(environment: [:]) }
        // And the facade opens a store there
        let analytics = try PaywallAnalytics(
            configuration: .init(databasePath: path, forwarding: .off), environment: [:])
        #expect(FileManager.default.fileExists(atPath: path))
        try await analytics.shutdown()
    }
}
