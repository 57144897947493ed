/// The version of PaywallAnalytics: printed by `--version`, sent to RevenueCat as `X-Version`,
/// written into `run.json`.
public enum ProductVersion {
    /// The semantic version of this build.
    public static let current = "0.1.0"
}
