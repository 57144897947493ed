import Foundation

#if canImport(UIKit) && !os(watchOS)
    import UIKit
#elseif canImport(AppKit)
    import AppKit
#endif

/// The notification observers the facade registered (removed at shutdown). Apple-only code, kept
/// thin: each notification becomes one ``PaywallAnalytics/handle(_:)`` call, which the Linux tests drive.
final class LifecycleObservation: @unchecked Sendable {
    // @unchecked Sendable: the tokens are written once in init and only read in remove().
    private let tokens: [any NSObjectProtocol]

    /// Observes the platform's lifecycle notifications, or returns `nil` where there are none.
    init?(_ handle: @escaping @Sendable (AppLifecycleEvent) -> Void) {
        #if canImport(UIKit) && !os(watchOS)
            let center = NotificationCenter.default
            tokens = [
                center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) {
                    _ in handle(.didEnterBackground)
                },
                center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) {
                    _ in handle(.willEnterForeground)
                },
            ]
        #elseif canImport(AppKit)
            let center = NotificationCenter.default
            tokens = [
                center.addObserver(forName: NSApplication.didHideNotification, object: nil, queue: nil) { _ in
                    handle(.didEnterBackground)
                },
                center.addObserver(forName: NSApplication.willUnhideNotification, object: nil, queue: nil) { _ in
                    handle(.willEnterForeground)
                },
            ]
        #else
            return nil
        #endif
    }

    /// Stops observing.
    func remove() {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}

extension BackgroundTaskRunner {
    /// `UIApplication.beginBackgroundTask` where UIKit has it (iOS, tvOS, visionOS), else ``none``.
    public static var platform: BackgroundTaskRunner {
        #if canImport(UIKit) && !os(watchOS)
            return BackgroundTaskRunner { name in
                let task = BackgroundTaskBox()
                await MainActor.run {
                    task.identifier = UIApplication.shared.beginBackgroundTask(withName: name) {
                        MainActor.assumeIsolated { task.end() }  // out of time: end it, or the app is killed
                    }
                }
                return { Task { @MainActor in task.end() } }
            }
        #else
            return .none
        #endif
    }
}

#if canImport(UIKit) && !os(watchOS)
    /// A background task's identifier, ended once (by the work or by the expiration handler).
    final class BackgroundTaskBox: @unchecked Sendable {
        // @unchecked Sendable: read and written on the main actor only.
        var identifier: UIBackgroundTaskIdentifier = .invalid

        @MainActor func end() {
            guard identifier != .invalid else { return }
            UIApplication.shared.endBackgroundTask(identifier)
            identifier = .invalid
        }
    }
#endif
