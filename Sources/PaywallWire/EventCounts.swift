/// How many of one write's lines went where, counted the same way at both ends: the store's group
/// commit counts each writer's part with it, the collector's `/v1/events` answer carries it
/// (``CollectorAnswer``), and a delivery destination's verdict reports it (for RevenueCat, every
/// delivered impression is `accepted`). `accepted + duplicates + quarantined + suppressed` is the
/// number of lines.
///
/// It was two types, `CommitCounts` (PaywallStore) and `DeliveryCounts` (the delivery machinery);
/// both names remain as deprecated type aliases of this one.
public struct EventCounts: Sendable, Hashable {
    /// Events stored for the first time (RevenueCat: delivered; collector: accepted).
    public var accepted: Int
    /// Valid events whose id was already stored (or came earlier in the same group commit).
    public var duplicates: Int
    /// Lines quarantined as invalid (including those whose payload already was), conflicts included:
    /// an event whose id is stored with other content is quarantined, the stored one kept. Never sent
    /// again.
    public var quarantined: Int
    /// Events and refused lines of forgotten customers (the store's suppression list, which
    /// `forget --user` fills): not stored, counted in `suppressed_events`; never sent again.
    public var suppressed: Int

    /// Creates counts.
    public init(accepted: Int, duplicates: Int = 0, quarantined: Int = 0, suppressed: Int = 0) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.quarantined = quarantined
        self.suppressed = suppressed
    }

    /// Every line counted.
    public var total: Int { accepted + duplicates + quarantined + suppressed }
}
