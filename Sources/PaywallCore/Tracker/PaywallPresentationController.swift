import Foundation
import PaywallLock

/// Turns a paywall screen's UI callbacks into presentation calls, the same on every platform: the
/// SwiftUI modifier `.paywallPresentation(…)` and the UIKit helper are thin shells over it, and the
/// tests drive it directly.
///
/// - The first ``viewAppeared()`` opens the presentation (and one after a close opens the next).
/// - The paywall counts as on screen while the view is shown *and* its scene is active
///   (``scenePhaseChanged(isActive:)``): a window sent to the background stops the dwell.
/// - ``viewDisappeared(dismissed:)`` with `dismissed: true` (the sheet went away, the screen was
///   popped) and ``dismissedInteractively()`` close a presentation the app did not close with
///   `via = gesture`; a view merely covered (`dismissed: false`) stays open.
/// - ``close(_:)`` is the app's result; ``selectPlan(_:)`` and ``startPurchase(_:)`` the handle's
///   actions. Nothing here throws: misuse goes to the tracker's `onMisuse` hook.
///
/// ```swift
/// let controller = PaywallPresentationController(tracker: analytics.tracker, source: "settings", userID: id)
/// controller.viewAppeared()                       // opens, on screen: the dwell starts
/// controller.selectPlan("pro_annual")
/// controller.viewDisappeared(dismissed: true)     // swiped away: paywall_closed, via = gesture
/// ```
public final class PaywallPresentationController: Sendable {
    struct State {
        var presentation: Presentation?
        var viewShown = false
        var sceneActive = true
    }

    let tracker: PresentationTracker
    let source: String
    let offeringID: String?
    let placementID: String?
    let userID: String
    let sessionID: UUID?
    let impressionMode: PresentationTracker.ImpressionMode?
    let state = Lock(State())

    /// Creates a controller; nothing is opened before the view appears.
    ///
    /// - Parameters: as ``PresentationTracker/open(source:offeringID:placementID:userID:sessionID:impressionMode:)``.
    public init(
        tracker: PresentationTracker, source: String, offeringID: String? = nil, placementID: String? = nil,
        userID: String, sessionID: UUID? = nil, impressionMode: PresentationTracker.ImpressionMode? = nil
    ) {
        self.tracker = tracker
        self.source = source
        self.offeringID = offeringID
        self.placementID = placementID
        self.userID = userID
        self.sessionID = sessionID
        self.impressionMode = impressionMode
    }

    /// The current presentation (`nil` before the view appeared, or when opening it failed).
    public var presentation: Presentation? { state.withLock { $0.presentation } }

    /// The view is on screen (`onAppear`, `viewDidAppear`): opens the presentation if there is none
    /// or the last one was closed, and reports it visible if the scene is active.
    public func viewAppeared() {
        let paywall: Presentation? = state.withLock { state in
            state.viewShown = true
            if state.presentation == nil || state.presentation?.isClosed == true {
                do throws(TrackerError) {
                    state.presentation = try tracker.open(
                        source: source, offeringID: offeringID, placementID: placementID, userID: userID,
                        sessionID: sessionID, impressionMode: impressionMode)
                } catch {
                    tracker.onMisuse(error)
                    state.presentation = nil
                }
            }
            return state.sceneActive ? state.presentation : nil
        }
        paywall?.appeared()
    }

    /// The view left the screen (`onDisappear`, `viewDidDisappear`). `dismissed`: it is gone for good
    /// (the sheet was dismissed, the screen popped), so a presentation the app did not close is
    /// closed with `via = gesture`; otherwise it was only covered and stays open.
    public func viewDisappeared(dismissed: Bool = false) {
        let paywall = state.withLock { state in
            state.viewShown = false
            return state.presentation
        }
        paywall?.disappeared()
        if dismissed { dismissedInteractively() }
    }

    /// The scene's phase changed: the paywall counts as on screen only while its scene is active.
    public func scenePhaseChanged(isActive: Bool) {
        let (paywall, visible) = state.withLock { state in
            state.sceneActive = isActive
            return (state.presentation, isActive && state.viewShown)
        }
        if visible { paywall?.appeared() } else { paywall?.disappeared() }
    }

    /// The customer dismissed the paywall interactively (a swipe down, the system back gesture):
    /// closes it with `via = gesture` unless the app closed it already.
    public func dismissedInteractively() {
        guard let paywall = presentation, !paywall.isClosed else { return }
        paywall.checkedCloseIfOpen(.dismissed(via: .gesture))
    }

    /// The app's result: closes the presentation (see ``Presentation/close(_:)``).
    public func close(_ outcome: CloseOutcome) {
        guard let paywall = presentation else {
            tracker.onMisuse(.notOpen(attempted: "close()"))
            return
        }
        paywall.close(outcome)
    }

    /// The customer selected a plan (see ``Presentation/selectPlan(_:)``).
    public func selectPlan(_ product: String) {
        guard let paywall = presentation else { return tracker.onMisuse(.notOpen(attempted: "selectPlan()")) }
        paywall.selectPlan(product)
    }

    /// The customer started a purchase (see ``Presentation/startPurchase(_:)``).
    public func startPurchase(_ product: String) {
        guard let paywall = presentation else { return tracker.onMisuse(.notOpen(attempted: "startPurchase()")) }
        paywall.startPurchase(product)
    }
}

extension Presentation {
    /// Closes unless already closed, without reporting the race of two closes as misuse (the app's
    /// own close and the gesture's may cross).
    func checkedCloseIfOpen(_ outcome: CloseOutcome) {
        do { try checked.close(outcome) } catch .alreadyClosed { return } catch { tracker.onMisuse(error) }
    }
}
