import Foundation
import PaywallCore
import PaywallSimulation
import PaywallTestSupport
import Testing

/// A tracker on virtual time: a manual monotonic clock and a wall clock that moves with it.
struct TrackerHarness {
    static let start: Int64 = 1_764_400_000_000
    let clock = ManualClock()
    let sink = InMemoryEventSink()
    let misuse = InMemoryMisuse()
    let tracker: PresentationTracker

    init(mode: PresentationTracker.ImpressionMode = .default) {
        let clock = self.clock
        let now = Now {
            TrackerHarness.start + clock.now.offset.components.seconds * 1000
                + clock.now.offset.components.attoseconds / 1_000_000_000_000_000
        }
        let misuse = self.misuse
        tracker = PresentationTracker(sink: sink, clock: clock, now: now, impressionMode: mode) { misuse.append($0) }
    }

    var misuses: [TrackerError] { misuse.all }

    var names: [EventName] { sink.events.map(\.name) }

    func events(_ name: EventName) -> [EventRecord] { sink.events.filter { $0.name == name } }

    /// Waits until the timer tasks have delivered `count` events.
    func waitForEvents(_ count: Int) async {
        _ = await Eventually.holds { sink.events.count >= count }
    }

    func open(_ source: String = "onboarding") throws -> Presentation {
        try tracker.open(source: source, offeringID: "default", userID: "user_42", sessionID: UUID())
    }
}

struct PresentationTrackerTests {
    @Test func aPaywallClosedBeforeTheDwellTimeGetsNoImpression() async throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(999))
        paywall.close(.dismissed(via: .closeButton))
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.names == [.paywallClosed])
        #expect(harness.sink.events[0].properties.openS == 0.999)
        #expect(harness.sink.events[0].properties.via == .closeButton)
    }

    @Test func dwellCountsOnlyContinuousVisibility() async throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(600))
        paywall.disappeared()
        harness.clock.advance(by: .seconds(5))
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(600))
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.names.isEmpty, "1.2 s visible in two pieces is no impression")
        harness.clock.advance(by: .milliseconds(400))
        await harness.waitForEvents(1)
        #expect(harness.names == [.paywallShown])
        #expect(harness.sink.events[0].occurredAt == TrackerHarness.start + 6_600)
    }

    @Test func theDwellTimeReachedExactlyCountsOnClose() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .seconds(1))
        paywall.close(.dismissed(via: .continueFree))
        #expect(harness.names == [.paywallShown, .paywallClosed])
        #expect(harness.sink.events[0].occurredAt == TrackerHarness.start + 1_000)
    }

    @Test func aGestureDismissalIsClosedWithViaGestureInCatalogVersionTwo() throws {
        // Given a paywall on screen for 2.5 s with a plan selected
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .seconds(2))
        paywall.selectPlan("pro_annual")
        harness.clock.advance(by: .milliseconds(500))
        // When the customer swipes it away
        paywall.close(.dismissed(via: .gesture))
        // Then the close says gesture, keeps the plan, and is a valid event of the current catalog
        let closed = try #require(harness.sink.events.last)
        #expect(closed.name == .paywallClosed)
        #expect(closed.properties.result == .dismissed && closed.properties.via == .gesture)
        #expect(closed.properties.product == "pro_annual")
        #expect(closed.properties.openS == 2.5)
        #expect(closed.catalogVersion == 2)
        #expect(EventValidator().validate(closed) == [])
    }

    @Test func theTimerEmitsTheImpressionWhileThePaywallStaysOpen() async throws {
        let harness = TrackerHarness(mode: .automatic(dwell: .milliseconds(1500)))
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(1500))
        await harness.waitForEvents(1)
        #expect(harness.names == [.paywallShown])
        let shown = try #require(harness.sink.events.first)
        #expect(shown.properties.offeringID == "default")
        #expect(shown.occurredAt == TrackerHarness.start + 1_500)
        harness.clock.advance(by: .seconds(10))
        paywall.close(.dismissed(via: .closeButton))
        #expect(harness.names == [.paywallShown, .paywallClosed], "one impression, however long it stays")
    }

    @Test func aLongOpenIsMeasuredFromTheFirstAppearance() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        harness.clock.advance(by: .seconds(3))
        paywall.appeared()
        harness.clock.advance(by: .seconds(3_600))
        paywall.close(.dismissed(via: .closeButton))
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.openS == 3_600)
        #expect(harness.events(.paywallShown).first?.occurredAt == TrackerHarness.start + 4_000)
    }

    @Test func aDismissCarriesTheLastSelectedPlan() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        paywall.selectPlan("pro_monthly")
        paywall.selectPlan("pro_annual")
        paywall.close(.dismissed(via: .closeButton))
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.product == "pro_annual")
        #expect(harness.events(.paywallPlanSelected).map(\.properties.product) == ["pro_monthly", "pro_annual"])
    }

    @Test func aPurchaseClosesAutomaticallyWithTheProductBought() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .seconds(2))
        paywall.selectPlan("pro_annual")
        paywall.startPurchase("pro_annual")
        harness.clock.advance(by: .seconds(8))
        paywall.close(.purchased(product: "pro_annual"))
        #expect(harness.names == [.paywallShown, .paywallPlanSelected, .paywallPurchaseStarted, .paywallClosed])
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.result == .purchased)
        #expect(closed.properties.via == .auto)
        #expect(closed.properties.product == "pro_annual")
        #expect(closed.properties.openS == 10)
        #expect(Set(harness.sink.events.map(\.properties.pwID)) == [paywall.pwID])
    }

    @Test func aRestoreClosesAutomatically() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        paywall.close(.restored)
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.result == .restored)
        #expect(closed.properties.via == .auto)
        #expect(closed.properties.product == nil)
    }

    @Test func aSecondCloseAndEventsAfterTheCloseThrowAndEmitNothing() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        paywall.close(.dismissed(via: .closeButton))
        let before = harness.sink.events
        #expect(throws: TrackerError.alreadyClosed(pwID: paywall.pwID, attempted: "close()")) {
            try paywall.checked.close(.purchased(product: "pro"))
        }
        #expect(throws: TrackerError.alreadyClosed(pwID: paywall.pwID, attempted: "selectPlan()")) {
            try paywall.checked.selectPlan("pro")
        }
        #expect(throws: TrackerError.alreadyClosed(pwID: paywall.pwID, attempted: "startPurchase()")) {
            try paywall.checked.startPurchase("pro")
        }
        #expect(throws: TrackerError.alreadyClosed(pwID: paywall.pwID, attempted: "appeared()")) {
            try paywall.checked.appeared()
        }
        paywall.checked.disappeared()  // SwiftUI's onDisappear after the close: not misuse
        #expect(harness.sink.events == before)
    }

    @Test func actionsOutOfOrderAreReportedToTheCaller() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        #expect(throws: TrackerError.notVisible(pwID: paywall.pwID, attempted: "selectPlan()")) {
            try paywall.checked.selectPlan("pro")
        }
        paywall.appeared()
        #expect(throws: TrackerError.impressionIsAutomatic(pwID: paywall.pwID)) {
            try paywall.checked.reportImpression()
        }
        func isInvalidValue(_ error: TrackerError?) -> Bool { if case .invalidValue = error { true } else { false } }
        #expect(isInvalidValue(#expect(throws: TrackerError.self) { try paywall.checked.selectPlan("") }))
        #expect(harness.sink.events.isEmpty)
        #expect(isInvalidValue(#expect(throws: TrackerError.self) { try harness.open("") }))
        #expect(
            isInvalidValue(#expect(throws: TrackerError.self) { try harness.open(String(repeating: "x", count: 65)) }))
        let message = TrackerError.notVisible(pwID: paywall.pwID, attempted: "selectPlan()").description
        #expect(message.contains("appeared() first"))
    }

    @Test func misuseWithoutTryGoesToTheHookAndEmitsNothing() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.selectPlan("pro")  // before the first appearance
        paywall.appeared()
        paywall.close(.dismissed(via: .closeButton))
        paywall.close(.restored)  // a second close
        paywall.startPurchase("pro")  // an action after the close
        #expect(harness.names == [.paywallClosed])
        #expect(
            harness.misuses == [
                .notVisible(pwID: paywall.pwID, attempted: "selectPlan()"),
                .alreadyClosed(pwID: paywall.pwID, attempted: "close()"),
                .alreadyClosed(pwID: paywall.pwID, attempted: "startPurchase()"),
            ])
    }

    @Test func redundantVisibilityCallsChangeNothing() throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.disappeared()  // hidden already
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(600))
        paywall.appeared()  // SwiftUI's second onAppear: the dwell goes on
        #expect(paywall.isVisible)
        harness.clock.advance(by: .milliseconds(400))
        paywall.disappeared()
        paywall.disappeared()
        #expect(!paywall.isVisible)
        paywall.close(.dismissed(via: .closeButton))
        paywall.disappeared()  // onDisappear after the close
        #expect(harness.names == [.paywallShown, .paywallClosed])
        #expect(harness.events(.paywallShown).first?.occurredAt == TrackerHarness.start + 1_000)
        #expect(harness.misuses.isEmpty)
    }

    @Test func backgroundTimeNeverCountsAsDwell() async throws {
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .milliseconds(700))
        harness.tracker.suspend()
        #expect(!paywall.isVisible && harness.tracker.isSuspended)
        harness.clock.advance(by: .seconds(3_600))  // an hour in the background
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.names.isEmpty, "0.7 s visible, then background: no impression")
        harness.tracker.resume()
        #expect(paywall.isVisible)
        harness.clock.advance(by: .milliseconds(700))
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.names.isEmpty, "dwell started over at resume")
        harness.clock.advance(by: .milliseconds(300))
        await harness.waitForEvents(1)
        #expect(harness.names == [.paywallShown])
        #expect(harness.sink.events[0].occurredAt == TrackerHarness.start + 3_600_000 + 1_700)
    }

    @Test func suspendEmitsAReachedImpressionAndResumeRestoresOnlyWhatWasVisible() async throws {
        let harness = TrackerHarness()
        let shown = try harness.open("shown")
        let hidden = try harness.open("hidden")
        let later = try harness.open("later")
        shown.appeared()
        hidden.appeared()
        hidden.disappeared()
        harness.clock.advance(by: .seconds(1))
        harness.tracker.suspend()
        harness.tracker.suspend()  // twice is once
        #expect(harness.events(.paywallShown).map(\.properties.source) == ["shown"])
        later.appeared()  // while suspended: takes effect at resume
        #expect(!later.isVisible)
        later.selectPlan("pro")  // not on screen while suspended: misuse
        harness.clock.advance(by: .seconds(30))
        harness.tracker.resume()
        #expect(shown.isVisible && !hidden.isVisible && later.isVisible)
        harness.clock.advance(by: .seconds(2))
        later.close(.dismissed(via: .closeButton))
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.openS == 2, "open_s counts from the first real appearance, at resume")
        #expect(harness.events(.paywallShown).map(\.properties.source).sorted() == ["later", "shown"])
        #expect(harness.misuses == [.notVisible(pwID: later.pwID, attempted: "selectPlan()")])
    }

    @Test func aPresentationCanChooseItsOwnImpressionMode() async throws {
        let harness = TrackerHarness()
        let byApp = try harness.tracker.open(source: "byapp", userID: "user_42", impressionMode: .appReported)
        let quick = try harness.tracker.open(
            source: "quick", userID: "user_42",
            impressionMode: .automatic(dwell: .milliseconds(200)))
        #expect(byApp.impressionMode == .appReported)
        byApp.appeared()
        quick.appeared()
        harness.clock.advance(by: .milliseconds(200))
        await harness.waitForEvents(1)
        #expect(harness.events(.paywallShown).map(\.properties.source) == ["quick"])
        harness.clock.advance(by: .seconds(5))
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.events(.paywallShown).count == 1, "the app-reported one runs no timer")
        try byApp.checked.reportImpression()
        #expect(harness.events(.paywallShown).map(\.properties.source) == ["quick", "byapp"])
    }

    @Test func openSecondsAreCappedAtTheCatalogsBound() throws {
        let bound = try #require(Catalog.bundled.property(named: "open_s")?.max)
        let harness = TrackerHarness()
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .seconds(Int64(bound) * 3))
        paywall.close(.dismissed(via: .closeButton))
        let closed = try #require(harness.events(.paywallClosed).first)
        #expect(closed.properties.openS == bound)
        #expect(harness.sink.events.allSatisfy { EventValidator().validate($0).isEmpty })
    }

    @Test func theAppReportedModeRunsNoTimerAndAcceptsOneImpression() async throws {
        let harness = TrackerHarness(mode: .appReported)
        let paywall = try harness.open()
        paywall.appeared()
        harness.clock.advance(by: .seconds(30))
        try await Task.sleep(for: .milliseconds(20))
        #expect(harness.names.isEmpty)
        paywall.reportImpression()
        #expect(throws: TrackerError.impressionAlreadyReported(pwID: paywall.pwID)) {
            try paywall.checked.reportImpression()
        }
        paywall.close(.dismissed(via: .closeButton))
        #expect(harness.names == [.paywallShown, .paywallClosed])
        #expect(harness.events(.paywallShown).first?.occurredAt == TrackerHarness.start + 30_000)
    }

    @Test func hundredsOfConcurrentPresentationsEachGetOneImpressionAndOneClose() async throws {
        let harness = TrackerHarness()
        let count = 500
        let presentations = try (0..<count).map { try harness.open("placement_\($0 % 7)") }
        await withTaskGroup(of: Void.self) { group in
            for paywall in presentations { group.addTask { paywall.appeared() } }
        }
        harness.clock.advance(by: .milliseconds(1_500))
        await withTaskGroup(of: Void.self) { group in
            for (index, paywall) in presentations.enumerated() {
                group.addTask {
                    paywall.selectPlan("plan_\(index % 3)")
                    paywall.close(
                        index % 2 == 0 ? .purchased(product: "plan_\(index % 3)") : .dismissed(via: .closeButton))
                    paywall.close(.restored)
                }
            }
        }
        await harness.waitForEvents(count * 3)
        let events = harness.sink.events
        #expect(events.count == count * 3)
        for name in [EventName.paywallShown, .paywallClosed, .paywallPlanSelected] {
            let ids = events.filter { $0.name == name }.map(\.properties.pwID)
            #expect(Set(ids).count == count && ids.count == count, "\(name) once per presentation")
        }
        #expect(Set(events.map(\.id)).count == events.count, "event ids are unique")
        let validator = EventValidator()
        #expect(events.allSatisfy { validator.validate($0).isEmpty }, "every emitted event satisfies the catalog")
    }
}
