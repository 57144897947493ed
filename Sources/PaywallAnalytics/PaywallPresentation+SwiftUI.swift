// SwiftUI shells over PaywallPresentationController (PaywallCore), which the Linux tests drive.
// This file is Apple-only and has not been compiled on the machine this package is developed on
// (Linux): keep it thin, every decision is in the controller.
#if canImport(SwiftUI)
    import PaywallCore
    import SwiftUI

    extension View {
        /// Tracks this view as a paywall: the presentation opens when the view appears, is on screen
        /// while the view is shown and its scene is active, and — when the view was presented (a
        /// sheet, a full-screen cover, a pushed screen) and goes away without the app's close — is
        /// closed with `via = gesture`. The paywall's own views reach it through
        /// `@Environment(\.paywall)`: `paywall?.selectPlan(…)`, `paywall?.startPurchase(…)`,
        /// `paywall?.close(.purchased(product: …))`. With `analytics` `nil` nothing is tracked.
        public func paywallPresentation(
            _ analytics: PaywallAnalytics?, source: String, offeringID: String? = nil, placementID: String? = nil,
            userID: String
        ) -> some View {
            modifier(
                PaywallPresentationModifier(
                    controller: analytics.map {
                        PaywallPresentationController(
                            tracker: $0.tracker, source: source, offeringID: offeringID, placementID: placementID,
                            userID: userID)
                    }))
        }
    }

    /// The key of `EnvironmentValues.paywall`.
    private struct PaywallControllerKey: EnvironmentKey {
        static let defaultValue: PaywallPresentationController? = nil
    }

    extension EnvironmentValues {
        /// The paywall presentation of the enclosing `.paywallPresentation(…)`, `nil` outside one.
        public var paywall: PaywallPresentationController? {
            get { self[PaywallControllerKey.self] }
            set { self[PaywallControllerKey.self] = newValue }
        }
    }

    /// Forwards the view's appearance, its scene's phase and its dismissal to the controller.
    struct PaywallPresentationModifier: ViewModifier {
        @State private var controller: PaywallPresentationController?
        @Environment(\.scenePhase) private var scenePhase
        @Environment(\.isPresented) private var isPresented

        init(controller: PaywallPresentationController?) {
            _controller = State(initialValue: controller)
        }

        func body(content: Content) -> some View {
            content
                .environment(\.paywall, controller)
                .onAppear { controller?.viewAppeared() }
                .onDisappear { controller?.viewDisappeared(dismissed: !isPresented) }
                // task(id:) runs at appearance and on every change, on every supported OS version.
                .task(id: scenePhase) { controller?.scenePhaseChanged(isActive: scenePhase == .active) }
        }
    }
#endif
