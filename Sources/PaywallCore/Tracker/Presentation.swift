import Foundation
import PaywallLock

/// How a presentation ended, as the app reports it. `via` follows from it: `auto` for a purchase
/// or a restore (the paywall closes itself), the button the customer used otherwise.
public enum CloseOutcome: Sendable, Hashable {
    /// The customer bought `product`.
    case purchased(product: String)
    /// The customer restored purchases.
    case restored
    /// The customer left without buying, with the close button or "continue for free".
    case dismissed(via: DismissVia)

    /// The two ways to leave without buying.
    public enum DismissVia: Sendable, Hashable {
        /// The close button.
        case closeButton
        /// A "continue for free" link.
        case continueFree
    }
}

/// One showing of a paywall (one `pw_id`). Report what happens; the presentation emits the
/// catalog events. Every method may be called from any thread; misuse throws ``TrackerError``
/// and emits nothing.
public final class Presentation: Sendable {
    struct Context: Sendable {
        let pwID: UUID
        let source: String
        let offeringID: String?
        let placementID: String?
        let userID: String
        let sessionID: UUID?
    }

    struct State {
        var firstAppearedAt: Duration?
        var visibleSince: Duration?
        var visibilityEpoch = 0
        var impressionEmitted = false
        var lastSelectedProduct: String?
        var closed = false
        var dwellTimer: Task<Void, Never>?
    }

    let context: Context
    let tracker: PresentationTracker
    let state = Lock(State())

    /// The presentation's id (`pw_id` on every event it emits).
    public var pwID: UUID { context.pwID }

    init(context: Context, tracker: PresentationTracker) {
        self.context = context
        self.tracker = tracker
    }

    /// The paywall came on screen (again). Starts the dwell timer in automatic mode.
    public func appeared() throws(TrackerError) {
        let elapsed = tracker.clock.elapsed()
        try state.withLock { state throws(TrackerError) in
            try ensureOpen(state, "appeared()")
            guard state.visibleSince == nil else { throw .alreadyVisible(pwID: pwID) }
            state.visibleSince = elapsed
            state.firstAppearedAt = state.firstAppearedAt ?? elapsed
            state.visibilityEpoch += 1
            guard case .automatic(let dwell) = tracker.mode, !state.impressionEmitted else { return }
            state.dwellTimer = startDwellTimer(deadline: elapsed + dwell, epoch: state.visibilityEpoch)
        }
    }

    /// The paywall left the screen without closing (e.g. the app went to the background). Dwell
    /// counts only continuous visibility, so the timer starts over on the next `appeared()`.
    public func disappeared() throws(TrackerError) {
        let elapsed = tracker.clock.elapsed()
        try state.withLock { state throws(TrackerError) in
            try ensureOpen(state, "disappeared()")
            guard state.visibleSince != nil else { throw .notVisible(pwID: pwID, attempted: "disappeared()") }
            emitImpressionIfDwellReached(&state, at: elapsed)
            state.visibleSince = nil
            state.dwellTimer?.cancel()
            state.dwellTimer = nil
        }
    }

    /// The customer selected a plan. Emits `paywall_plan_selected`.
    public func selectPlan(_ product: String) throws(TrackerError) {
        try PresentationTracker.check("product", product)
        try visibleAction("selectPlan()") { state, elapsed in
            state.lastSelectedProduct = product
            return PaywallPlanSelected(pwID: pwID, source: context.source, product: product)
        }
    }

    /// The customer started a purchase. Emits `paywall_purchase_started`.
    public func startPurchase(_ product: String) throws(TrackerError) {
        try PresentationTracker.check("product", product)
        try visibleAction("startPurchase()") { _, _ in
            PaywallPurchaseStarted(pwID: pwID, source: context.source, product: product)
        }
    }

    /// App-reported mode: the app says the paywall made an impression. Emits `paywall_shown` once.
    public func reportImpression() throws(TrackerError) {
        guard case .appReported = tracker.mode else { throw .impressionIsAutomatic(pwID: pwID) }
        let occurredAt = tracker.now.milliseconds()
        try state.withLock { state throws(TrackerError) in
            try ensureOpen(state, "reportImpression()")
            guard !state.impressionEmitted else { throw .impressionAlreadyReported(pwID: pwID) }
            emitImpression(&state, occurredAt: occurredAt)
        }
    }

    /// The presentation ended. Emits `paywall_closed` (after `paywall_shown` if the dwell time
    /// was reached and the timer has not fired yet), exactly once.
    public func close(_ outcome: CloseOutcome) throws(TrackerError) {
        if case .purchased(let product) = outcome { try PresentationTracker.check("product", product) }
        let elapsed = tracker.clock.elapsed()
        try state.withLock { state throws(TrackerError) in
            try ensureOpen(state, "close()")
            emitImpressionIfDwellReached(&state, at: elapsed)
            state.closed = true
            state.visibleSince = nil
            state.dwellTimer?.cancel()
            state.dwellTimer = nil
            let openSeconds = state.firstAppearedAt.map { Self.seconds(elapsed - $0) } ?? 0
            let (result, via, product): (CloseResult, CloseVia, String?) = switch outcome {
            case .purchased(let product): (.purchased, .auto, product)
            case .restored: (.restored, .auto, state.lastSelectedProduct)
            case .dismissed(.closeButton): (.dismissed, .closeButton, state.lastSelectedProduct)
            case .dismissed(.continueFree): (.dismissed, .continueFree, state.lastSelectedProduct)
            }
            let event = PaywallClosed(pwID: pwID, source: context.source, result: result, via: via,
                                      openS: openSeconds, product: product)
            tracker.emit(event, context: context, occurredAt: tracker.now.milliseconds())
        }
    }
}
