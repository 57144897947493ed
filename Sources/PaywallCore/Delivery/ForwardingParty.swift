/// Who sends an install's impressions to RevenueCat: the `X-Paywall-Forwarding` header of `/v1/events`,
/// which the uploader sends and the collector honours. The raw values are the wire strings.
public enum ForwardingParty: String, Sendable, Hashable, CaseIterable {
    /// The collector's forwarder: new impressions enter the collector's outbox as pending, and the
    /// install hands them over (they leave its own outbox once uploaded).
    case collector
    /// The app install does: the collector records new impressions in `deliveries` as forwarded by
    /// the device, and never sends them.
    case device

    /// The header that carries it.
    public static let headerName = "X-Paywall-Forwarding"
}
