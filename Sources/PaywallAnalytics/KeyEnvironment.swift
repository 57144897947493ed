import Foundation

extension PaywallAnalytics {
    /// The environment the facade reads keys from by default (`REVENUECAT_API_KEY` when
    /// `revenueCatAPIKey` is `nil`, `PAYWALL_COLLECTOR_KEY` when the collector's `writeKey` is `nil`): the
    /// process's for command-line and server processes, none in an app — an app on a phone has no
    /// environment anyone can set, so an app passes its keys in the configuration.
    public static var keyEnvironment: [String: String] {
        keyEnvironment(
            isApp: isAppProcess, processEnvironment: ProcessInfo.processInfo.environment)
    }

    /// ``keyEnvironment`` for a process that is (`isApp`) or is not an app.
    static func keyEnvironment(isApp: Bool, processEnvironment: [String: String]) -> [String: String] {
        isApp ? [:] : processEnvironment
    }

    /// Whether this process is an app: always on iOS, iPadOS, tvOS, watchOS and visionOS; on macOS
    /// when the main bundle is an `.app`; never on Linux (a command-line tool or a server).
    static var isAppProcess: Bool {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            return true
        #elseif os(macOS)
            return Bundle.main.bundleURL.pathExtension == "app"
        #else
            return false
        #endif
    }
}
