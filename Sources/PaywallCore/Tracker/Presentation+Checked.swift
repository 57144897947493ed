import Foundation
import PaywallLock

extension Presentation {
    /// A presentation's calls that throw ``TrackerError`` on misuse (and emit nothing then),
    /// instead of handing it to the tracker's `onMisuse` hook. For tests and for apps that
    /// want to handle misuse at the call site: `try paywall.checked.close(.restored)`.
    public struct Checked: Sendable {
        let presentation: Presentation

        /// See ``Presentation/appeared()``.
        /// - Throws: ``TrackerError/alreadyClosed(pwID:attempted:)`` after the close.
        public func appeared() throws(TrackerError) {
            let p = presentation
            let elapsed = p.tracker.clock.elapsed()
            try p.state.withLock { state throws(TrackerError) in
                try p.ensureOpen(state, "appeared()")
                guard !state.appVisible else { return }
                state.appVisible = true
                if !p.tracker.isSuspended { p.startVisibility(&state, at: elapsed) }
            }
        }

        /// See ``Presentation/disappeared()``; never throws (idempotent, and a no-op after the close).
        public func disappeared() {
            let p = presentation
            let elapsed = p.tracker.clock.elapsed()
            p.state.withLock { state in
                guard !state.closed, state.appVisible else { return }
                state.appVisible = false
                p.endVisibility(&state, at: elapsed)
            }
        }

        /// See ``Presentation/selectPlan(_:)``.
        /// - Throws: ``TrackerError`` when closed, not on screen, or the product breaks the catalog.
        public func selectPlan(_ product: String) throws(TrackerError) {
            try PresentationTracker.check("product", product)
            let p = presentation
            try p.visibleAction("selectPlan()") { state, _ in
                state.lastSelectedProduct = product
                return PaywallPlanSelected(pwID: p.pwID, source: p.context.source, product: product)
            }
        }

        /// See ``Presentation/startPurchase(_:)``.
        /// - Throws: ``TrackerError`` when closed, not on screen, or the product breaks the catalog.
        public func startPurchase(_ product: String) throws(TrackerError) {
            try PresentationTracker.check("product", product)
            let p = presentation
            try p.visibleAction("startPurchase()") { _, _ in
                PaywallPurchaseStarted(pwID: p.pwID, source: p.context.source, product: product)
            }
        }

        /// See ``Presentation/reportImpression()``.
        /// - Throws: ``TrackerError`` in automatic mode, for a second impression, or after the close.
        public func reportImpression() throws(TrackerError) {
            let p = presentation
            guard case .appReported = p.context.mode else { throw .impressionIsAutomatic(pwID: p.pwID) }
            let occurredAt = p.tracker.now.milliseconds()
            try p.state.withLock { state throws(TrackerError) in
                try p.ensureOpen(state, "reportImpression()")
                guard !state.impressionEmitted else { throw .impressionAlreadyReported(pwID: p.pwID) }
                p.emitImpression(&state, occurredAt: occurredAt)
            }
        }

        /// See ``Presentation/close(_:)``.
        /// - Throws: ``TrackerError`` for a second close or a product that breaks the catalog.
        public func close(_ outcome: CloseOutcome) throws(TrackerError) {
            if case .purchased(let product) = outcome { try PresentationTracker.check("product", product) }
            let p = presentation
            let elapsed = p.tracker.clock.elapsed()
            try p.state.withLock { state throws(TrackerError) in
                try p.ensureOpen(state, "close()")
                p.endVisibility(&state, at: elapsed, journaling: false)
                state.closed = true
                state.appVisible = false
                let openSeconds = state.firstAppearedAt.map { Presentation.seconds(elapsed - $0) } ?? 0
                let (result, via, product): (CloseResult, CloseVia, String?) =
                    switch outcome {
                    case .purchased(let product): (.purchased, .auto, product)
                    case .restored: (.restored, .auto, state.lastSelectedProduct)
                    case .dismissed(.closeButton): (.dismissed, .closeButton, state.lastSelectedProduct)
                    case .dismissed(.continueFree): (.dismissed, .continueFree, state.lastSelectedProduct)
                    case .dismissed(.gesture): (.dismissed, .gesture, state.lastSelectedProduct)
                    }
                let event = PaywallClosed(
                    pwID: p.pwID, source: p.context.source, result: result, via: via,
                    openS: min(openSeconds, PresentationTracker.openSecondsBound), product: product)
                let record = p.tracker.record(event, context: p.context, occurredAt: p.tracker.now.milliseconds())
                // Journaled first: a kill between the two still leaves this close (not an abandoned one).
                p.journal(state, at: elapsed, close: record)
                p.tracker.sink.record(record)
            }
            p.tracker.unregister(p)
        }
    }
}
