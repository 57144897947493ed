import Foundation
import PaywallLock

/// How a presentation ended, as the app reports it. `via` follows from it: `auto` for a purchase
/// or a restore (the paywall closes itself), the button the customer used otherwise.
public enum CloseOutcome: Sendable, Hashable {
    /// The customer bought `product`.
    case purchased(product: String)
    /// The customer restored purchases.
    case restored
    /// The customer left without buying: the close button, "continue for free", or a gesture.
    case dismissed(via: DismissVia)

    /// The ways the customer can leave without buying. (A paywall the app left open when it went
    /// away is closed by the library itself, with `via = abandoned`; the app never reports that.)
    public enum DismissVia: Sendable, Hashable {
        /// The close button.
        case closeButton
        /// A "continue for free" link.
        case continueFree
        /// An interactive dismissal: swipe-to-dismiss of a sheet, the system back gesture.
        case gesture
    }
}

/// One showing of a paywall (one `pw_id`). Report what happens; the presentation emits the
/// catalog events. Every method may be called from any thread.
///
/// The methods do not throw, so view code needs no `try`: visibility calls are idempotent
/// (SwiftUI calls `onAppear` and `onDisappear` more than once, and `onDisappear` after the
/// close), and real misuse — a second close, an action after the close, a plan selected while
/// the paywall is not on screen — emits nothing and goes to the tracker's `onMisuse` hook.
/// Tests that want the error thrown use the same calls on ``checked``.
public final class Presentation: Sendable {
    struct Context: Sendable {
        let pwID: UUID
        let source: String
        let offeringID: String?
        let placementID: String?
        let userID: String
        let sessionID: UUID?
        let mode: PresentationTracker.ImpressionMode
    }

    struct State {
        var firstAppearedAt: Duration?
        /// What the app last said: `appeared()` (true) or `disappeared()` (false).
        var appVisible = false
        /// Set while the paywall is really on screen: the app says so and the tracker is not
        /// suspended. Dwell is measured from it.
        var visibleSince: Duration?
        /// The wall time (Unix ms) when `visibleSince` was set.
        var visibleSinceMs: Int64 = 0
        var visibilityEpoch = 0
        var impressionEmitted = false
        var lastSelectedProduct: String?
        var closed = false
        var dwellTimer: Task<Void, Never>?
        /// Visible time of the periods that ended (the current one is `visibleSince` to now).
        var visibleBefore: Duration = .zero
        /// The impression emitted, kept for the journal's snapshots.
        var impression: EventRecord?
        /// The periodic checkpoint while visible (``PresentationTracker/checkpointInterval``).
        var checkpointTimer: Task<Void, Never>?
    }

    let context: Context
    let tracker: PresentationTracker
    let state = Lock(State())

    /// The presentation's id (`pw_id` on every event it emits).
    public var pwID: UUID { context.pwID }

    /// The impression mode of this presentation (the tracker's default unless `open` chose one).
    public var impressionMode: PresentationTracker.ImpressionMode { context.mode }

    /// Whether the paywall counts as on screen now (the app said it appeared, it is not closed,
    /// and the tracker is not suspended).
    public var isVisible: Bool { state.withLock { $0.visibleSince != nil } }

    /// Whether the presentation has been closed.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The same calls, throwing ``TrackerError`` on misuse instead of reporting it.
    public var checked: Checked { Checked(presentation: self) }

    init(context: Context, tracker: PresentationTracker) {
        self.context = context
        self.tracker = tracker
    }

    /// The paywall came on screen (again). Starts the dwell timer in automatic mode. A second
    /// call while visible changes nothing; while the tracker is suspended it takes effect at
    /// `resume()`.
    public func appeared() { report { () throws(TrackerError) in try checked.appeared() } }

    /// The paywall left the screen without closing. Dwell counts only continuous visibility, so
    /// the timer starts over on the next `appeared()`. A second call, or a call after the close,
    /// changes nothing.
    public func disappeared() { checked.disappeared() }

    /// The customer selected a plan. Emits `paywall_plan_selected`; needs the paywall on screen.
    public func selectPlan(_ product: String) { report { () throws(TrackerError) in try checked.selectPlan(product) } }

    /// The customer started a purchase. Emits `paywall_purchase_started`; needs the paywall on screen.
    public func startPurchase(_ product: String) {
        report { () throws(TrackerError) in try checked.startPurchase(product) }
    }

    /// App-reported mode: the app says the paywall made an impression. Emits `paywall_shown` once.
    public func reportImpression() { report { () throws(TrackerError) in try checked.reportImpression() } }

    /// The presentation ended. Emits `paywall_closed` (after `paywall_shown` if the dwell time
    /// was reached and the timer has not fired yet), exactly once.
    public func close(_ outcome: CloseOutcome) { report { () throws(TrackerError) in try checked.close(outcome) } }

    private func report(_ body: () throws(TrackerError) -> Void) {
        do { try body() } catch { tracker.onMisuse(error) }
    }
}
