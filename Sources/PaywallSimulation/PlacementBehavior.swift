/// How customers behave at one placement in the simulation: the probabilities of each step of
/// the funnel and how long the paywall stays open.
public struct PlacementBehavior: Sendable, Hashable {
    /// The placement (`source`).
    public var name: String
    /// Probability the customer closes the paywall before the dwell time (no impression).
    public var bounce: Double
    /// Probability of selecting a plan, given an impression.
    public var select: Double
    /// Probability of starting a purchase, given a selected plan.
    public var startPurchase: Double
    /// Probability the started purchase completes (else it is cancelled), scaled by the customer's intent.
    public var complete: Double
    /// Probability of a restore instead, given an impression.
    public var restore: Double
    /// Share of dismissals through "continue for free" (else the close button).
    public var continueFree: Double
    /// Mean seconds on screen after the dwell time.
    public var meanOpenSeconds: Double
    /// Plans offered and how often each is chosen.
    public var products: [(String, Double)]
    /// The paywall variants (offerings) customers are assigned to, each customer to one per
    /// placement, and how each converts (default: one offering, "default").
    public var offerings: [Offering] = [Offering(name: "default", share: 1, purchaseFactor: 1)]

    /// One paywall variant of a placement in the simulation.
    public struct Offering: Sendable, Hashable {
        /// The `offering_id` its impressions carry.
        public var name: String
        /// The share of customers assigned to it (the shares of a placement add up to 1).
        public var share: Double
        /// Multiplies the chance that a started purchase completes (1: as the placement's behaviour says).
        public var purchaseFactor: Double

        /// Creates an offering.
        public init(name: String, share: Double, purchaseFactor: Double) {
            (self.name, self.share, self.purchaseFactor) = (name, share, purchaseFactor)
        }
    }

    /// Equality by name (the products list is not `Hashable`).
    public static func == (lhs: PlacementBehavior, rhs: PlacementBehavior) -> Bool { lhs.name == rhs.name }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The demo's six placements: onboarding converts best, feature gates bounce most. Onboarding
    /// tests a trial paywall that converts clearly better than the classic one; settings tests a
    /// compact paywall that converts about the same (a difference too small to tell from noise).
    public static let demo: [PlacementBehavior] = [
        PlacementBehavior(
            name: "onboarding", bounce: 0.08, select: 0.62, startPurchase: 0.55, complete: 0.80,
            restore: 0.02, continueFree: 0.85, meanOpenSeconds: 18,
            products: [("pro_annual", 0.6), ("pro_monthly", 0.3), ("pro_weekly", 0.1)],
            offerings: [
                Offering(name: "onboarding_classic", share: 0.51, purchaseFactor: 1),
                Offering(name: "onboarding_trial", share: 0.49, purchaseFactor: 1.45),
            ]),
        PlacementBehavior(
            name: "settings", bounce: 0.15, select: 0.45, startPurchase: 0.45, complete: 0.75,
            restore: 0.06, continueFree: 0.10, meanOpenSeconds: 14,
            products: [("pro_annual", 0.5), ("pro_monthly", 0.4), ("pro_lifetime", 0.1)],
            offerings: [
                Offering(name: "settings_classic", share: 0.5, purchaseFactor: 1),
                Offering(name: "settings_compact", share: 0.5, purchaseFactor: 1.04),
            ]),
        PlacementBehavior(
            name: "feature_gate", bounce: 0.42, select: 0.30, startPurchase: 0.40, complete: 0.70,
            restore: 0.01, continueFree: 0.05, meanOpenSeconds: 6,
            products: [("pro_monthly", 0.6), ("pro_annual", 0.4)]),
        PlacementBehavior(
            name: "limit_reached", bounce: 0.30, select: 0.38, startPurchase: 0.45, complete: 0.72,
            restore: 0.01, continueFree: 0.30, meanOpenSeconds: 9,
            products: [("pro_monthly", 0.5), ("pro_annual", 0.5)]),
        PlacementBehavior(
            name: "promo_banner", bounce: 0.20, select: 0.40, startPurchase: 0.35, complete: 0.75,
            restore: 0.01, continueFree: 0.0, meanOpenSeconds: 11,
            products: [("pro_annual_promo", 0.8), ("pro_monthly", 0.2)]),
        PlacementBehavior(
            name: "winback", bounce: 0.25, select: 0.35, startPurchase: 0.50, complete: 0.78,
            restore: 0.03, continueFree: 0.0, meanOpenSeconds: 12,
            products: [("pro_annual_promo", 0.7), ("pro_monthly", 0.3)]),
    ]
}
