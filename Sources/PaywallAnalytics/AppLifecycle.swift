import Foundation

/// The moments of an app's life the facade reacts to. On iOS, iPadOS, tvOS and visionOS the facade
/// observes them itself (`UIApplication` notifications), on macOS the app being hidden and shown
/// (`NSApplication`), unless ``PaywallAnalytics/Configuration/observesAppLifecycle`` is `false`;
/// elsewhere, and with observation off, the app calls ``PaywallAnalytics/handle(_:)`` (or
/// `suspend()` / `resume()`) itself.
public enum AppLifecycleEvent: Sendable, Hashable {
    /// The app went to the background (or was hidden): paywalls leave the screen, what is buffered is
    /// committed and pending work is sent within the suspend budget.
    case didEnterBackground
    /// The app is coming back to the foreground: what was on screen is on screen again.
    case willEnterForeground
}

/// Asks the system for time to finish work after the app went to the background (on iOS
/// `UIApplication.beginBackgroundTask`); a no-op where there is no such thing.
public struct BackgroundTaskRunner: Sendable {
    /// Begins a task named `name`; returns what ends it.
    public let begin: @Sendable (_ name: String) async -> @Sendable () -> Void

    /// Creates a runner from a begin function that returns the task's end.
    public init(begin: @escaping @Sendable (_ name: String) async -> @Sendable () -> Void) {
        self.begin = begin
    }

    /// No background time to ask for (Linux, command-line and server processes).
    public static let none = BackgroundTaskRunner { _ in {} }
}

extension PaywallAnalytics {
    /// Reacts to a lifecycle event: in the background, ``suspend(budget:)`` inside a background task
    /// (so the system gives it time to commit and send); back in the foreground, ``resume()``. The
    /// facade calls it itself where it observes the lifecycle; calling it twice in a row is harmless.
    ///
    /// - Returns: the suspend's report for ``AppLifecycleEvent/didEnterBackground``, else `nil`.
    @discardableResult
    public func handle(_ event: AppLifecycleEvent) async -> SuspendReport? {
        switch event {
        case .didEnterBackground:
            let end = await backgroundTasks.begin("PaywallAnalytics.suspend")
            defer { end() }
            return await suspend()
        case .willEnterForeground:
            resume()
            return nil
        }
    }

    /// Whether the facade observes the app's lifecycle itself (an Apple platform with
    /// ``Configuration/observesAppLifecycle`` on); otherwise the app calls ``handle(_:)``.
    public var observesAppLifecycle: Bool { lifecycleObservation != nil }
}
