import Foundation

extension PaywallAnalytics {
    /// The privacy manifest (`PrivacyInfo.xcprivacy`) shipped in the library's resource bundle: no
    /// tracking; the data it stores (the RevenueCat app user id, paywall interactions, the plan
    /// bought), linked to the customer, for analytics; the one required-reason API family it calls
    /// (file metadata through `stat`/`fstat`, of its own files in the app container). `nil` only
    /// when the bundle was not copied with the binary.
    public static var privacyManifestURL: URL? {
        Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy")
    }
}
