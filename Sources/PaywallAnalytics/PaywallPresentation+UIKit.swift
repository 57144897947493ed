// A UIKit shell over PaywallPresentationController (PaywallCore), which the Linux tests drive.
// Apple-only, and not compiled on the machine this package is developed on (Linux): keep it thin.
#if canImport(UIKit) && !os(watchOS)
    import PaywallCore
    import UIKit

    /// Tracks a paywall view controller: call ``viewDidAppear(_:)`` and ``viewDidDisappear(_:)``
    /// from the same methods of the view controller; a swipe-down of its sheet or a pop of its
    /// screen that the app did not close is closed with `via = gesture`. The app's actions go to
    /// ``controller`` (`selectPlan`, `startPurchase`, `close`).
    ///
    /// ```swift
    /// final class PaywallViewController: UIViewController {
    ///     lazy var tracking = PaywallViewControllerTracking(analytics, source: "settings", userID: userID)
    ///     override func viewDidAppear(_ animated: Bool) { super.viewDidAppear(animated); tracking.viewDidAppear(self) }
    ///     override func viewDidDisappear(_ animated: Bool) { super.viewDidDisappear(animated); tracking.viewDidDisappear(self) }
    /// }
    /// ```
    @MainActor
    public final class PaywallViewControllerTracking: NSObject, UIAdaptivePresentationControllerDelegate {
        /// The presentation's controller (plan, purchase and the app's close).
        public let controller: PaywallPresentationController
        private let sceneObservers = SceneObservers()

        /// Creates the tracking of one paywall screen (nothing opens before it appears).
        public init(
            _ analytics: PaywallAnalytics, source: String, offeringID: String? = nil, placementID: String? = nil,
            userID: String
        ) {
            controller = PaywallPresentationController(
                tracker: analytics.tracker, source: source, offeringID: offeringID, placementID: placementID,
                userID: userID)
        }

        /// From `viewDidAppear`: opens (or reopens after a close) and shows the presentation; becomes
        /// the sheet's presentation delegate when it has none, and follows the window scene's phase.
        public func viewDidAppear(_ viewController: UIViewController) {
            if let presentation = viewController.presentationController, presentation.delegate == nil {
                presentation.delegate = self
            }
            observeScene(of: viewController)
            controller.viewAppeared()
        }

        /// From `viewDidDisappear`: hidden, and closed with `via = gesture` when the screen was
        /// dismissed or popped without the app's close.
        public func viewDidDisappear(_ viewController: UIViewController) {
            let gone =
                viewController.isBeingDismissed || viewController.isMovingFromParent
                || viewController.navigationController?.isBeingDismissed == true
            controller.viewDisappeared(dismissed: gone)
        }

        /// UIKit calls this only for an interactive dismissal (a swipe down).
        public func presentationControllerDidDismiss(_ presentationController: UIPresentationController) {
            controller.dismissedInteractively()
        }

        private func observeScene(of viewController: UIViewController) {
            sceneObservers.replace(with: [])
            guard let scene = viewController.view.window?.windowScene else { return }
            let controller = self.controller
            let center = NotificationCenter.default
            sceneObservers.replace(with: [
                center.addObserver(forName: UIScene.didEnterBackgroundNotification, object: scene, queue: nil) { _ in
                    controller.scenePhaseChanged(isActive: false)
                },
                center.addObserver(forName: UIScene.willEnterForegroundNotification, object: scene, queue: nil) { _ in
                    controller.scenePhaseChanged(isActive: true)
                },
            ])
        }
    }

    /// The scene notifications observed; removed when replaced and when the tracking goes away.
    final class SceneObservers: @unchecked Sendable {
        // @unchecked Sendable: used from the main actor only (and from deinit, once nothing else can).
        private var tokens: [any NSObjectProtocol] = []

        func replace(with new: [any NSObjectProtocol]) {
            for token in tokens { NotificationCenter.default.removeObserver(token) }
            tokens = new
        }

        deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
    }
#endif
