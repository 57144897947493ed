import Foundation
import PaywallCore
import PaywallSimulation
import Testing

/// The platform-independent part of the SwiftUI modifier and the UIKit helper: view appearance,
/// scene phase, interactive dismissal and the app's result, on virtual time.
struct PaywallPresentationControllerTests {
    func controller(_ harness: TrackerHarness, source: String = "settings") -> PaywallPresentationController {
        PaywallPresentationController(tracker: harness.tracker, source: source, userID: "user_42")
    }

    @Test func nothingIsOpenUntilTheViewAppearsThenTheDwellGivesTheImpression() async {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        #expect(paywall.presentation == nil)
        paywall.viewAppeared()
        let opened = paywall.presentation
        #expect(opened?.isVisible == true)
        harness.clock.advance(by: .seconds(1))
        await harness.waitForEvents(1)
        #expect(harness.names == [.paywallShown])
        // A second onAppear (SwiftUI calls it again) keeps the same presentation
        paywall.viewAppeared()
        #expect(paywall.presentation === opened)
    }

    @Test func anInactiveSceneTakesThePaywallOffScreenAndAnActiveOnePutsItBack() {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.viewAppeared()
        harness.clock.advance(by: .milliseconds(600))
        paywall.scenePhaseChanged(isActive: false)
        #expect(paywall.presentation?.isVisible == false)
        harness.clock.advance(by: .seconds(30))
        paywall.scenePhaseChanged(isActive: true)
        #expect(paywall.presentation?.isVisible == true)
        harness.clock.advance(by: .milliseconds(600))
        paywall.close(.dismissed(via: .closeButton))
        // 0.6 s + 0.6 s in two periods: no impression; the close counts from the first appearance
        #expect(harness.names == [.paywallClosed])
        #expect(harness.sink.events.last?.properties.openS == 31.2)
    }

    @Test func aSceneGoingInactiveWhileTheViewIsHiddenDoesNotShowIt() {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.viewAppeared()
        paywall.viewDisappeared()
        paywall.scenePhaseChanged(isActive: false)
        paywall.scenePhaseChanged(isActive: true)
        #expect(paywall.presentation?.isVisible == false)
        #expect(paywall.presentation?.isClosed == false, "only covered: still open")
    }

    @Test func anInteractiveDismissalClosesWithViaGestureAndThePlanSelected() throws {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.viewAppeared()
        harness.clock.advance(by: .seconds(2))
        paywall.selectPlan("pro_annual")
        harness.clock.advance(by: .seconds(1))
        paywall.viewDisappeared(dismissed: true)
        let close = try #require(harness.events(.paywallClosed).first)
        #expect(close.properties.via == .gesture)
        #expect(close.properties.result == .dismissed)
        #expect(close.properties.product == "pro_annual")
        #expect(close.properties.openS == 3)
        #expect(harness.names == [.paywallShown, .paywallPlanSelected, .paywallClosed])
        // The UIKit delegate may report the same dismissal again: still one close, no misuse
        paywall.dismissedInteractively()
        #expect(harness.events(.paywallClosed).count == 1)
        #expect(harness.misuses.isEmpty)
    }

    @Test func theAppsResultBeforeTheSheetGoesAwayIsTheOnlyClose() throws {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.viewAppeared()
        harness.clock.advance(by: .seconds(1))
        paywall.startPurchase("pro_annual")
        paywall.close(.purchased(product: "pro_annual"))
        paywall.viewDisappeared(dismissed: true)
        let closes = harness.events(.paywallClosed)
        #expect(closes.map(\.properties.via) == [.auto])
        #expect(harness.misuses.isEmpty)
    }

    @Test func theViewShownAgainAfterACloseIsANewPresentation() throws {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.viewAppeared()
        let first = try #require(paywall.presentation)
        paywall.close(.dismissed(via: .closeButton))
        paywall.viewDisappeared(dismissed: true)
        paywall.viewAppeared()
        let second = try #require(paywall.presentation)
        #expect(first.pwID != second.pwID)
        #expect(second.isVisible)
    }

    @Test func callsBeforeTheViewAppearedAndAnInvalidSourceAreReportedNotThrown() {
        let harness = TrackerHarness()
        let paywall = controller(harness)
        paywall.selectPlan("pro_annual")
        paywall.close(.restored)
        #expect(harness.misuses == [.notOpen(attempted: "selectPlan()"), .notOpen(attempted: "close()")])
        let invalid = controller(harness, source: "")
        invalid.viewAppeared()
        #expect(invalid.presentation == nil)
        #expect(harness.names.isEmpty)
        #expect(harness.misuses.count == 3)
    }
}
