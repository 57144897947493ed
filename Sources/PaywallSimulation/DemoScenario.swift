/// The simulated population the demo records: how many customers, over how many days, from
/// which seed, and how each placement behaves.
public struct DemoScenario: Sendable {
    /// The seed; the same seed gives the same numbers.
    public var seed: UInt64
    /// Customers installing the app over the period.
    public var customers: Int
    /// Days simulated.
    public var days: Int
    /// The first simulated day, Unix milliseconds at UTC midnight (default 2026-10-01).
    public var startMs: Int64
    /// Share of customer-days in the last ``lateDays`` days whose device was offline, so their
    /// events arrive late (after the first report run).
    public var lateShare: Double
    /// How many of the final days can have late events (devices sync a few days late at most).
    public var lateDays: Int
    /// Share of presentations never closed (the app was killed while the paywall was open).
    public var unclosedShare: Double
    /// The placements.
    public var placements: [PlacementBehavior]

    /// Creates a scenario; the defaults are the demo's: 5,000 customers over 30 days.
    public init(
        seed: UInt64 = 42, customers: Int = 5_000, days: Int = 30, startMs: Int64 = 1_790_812_800_000,
        lateShare: Double = 0.1, lateDays: Int = 3, unclosedShare: Double = 0.004,
        placements: [PlacementBehavior] = PlacementBehavior.demo
    ) {
        self.seed = seed
        self.customers = customers
        self.days = days
        self.startMs = startMs
        self.lateShare = lateShare
        self.lateDays = lateDays
        self.unclosedShare = unclosedShare
        self.placements = placements
    }

    /// The behaviour named `name`; the scenario must define it.
    func behavior(_ name: String) -> PlacementBehavior {
        placements.first { $0.name == name } ?? placements[0]
    }
}

/// What a simulation produced.
public struct SimulationSummary: Sendable, Hashable {
    /// Customers simulated.
    public var customers = 0
    /// Presentations opened.
    public var presentations = 0
    /// Events emitted on time.
    public var onTimeEvents = 0
    /// Events held back to arrive late.
    public var lateEvents = 0
    /// Customers who bought.
    public var buyers = 0
    /// Buyers whose purchase came on a later day than their first impression.
    public var buyersOnALaterDay = 0
    /// Every purchase, in the order the customers were simulated (one per buyer).
    public var purchases: [SimulatedPurchase] = []
}

/// A purchase made on a simulated paywall: what the store (and RevenueCat's webhooks) then see.
public struct SimulatedPurchase: Sendable, Hashable {
    /// The customer's `user_id`.
    public var userID: String
    /// The placement of the paywall bought on.
    public var placement: String
    /// Its offering.
    public var offeringID: String
    /// The product bought.
    public var product: String
    /// When the paywall closed on the purchase, Unix milliseconds.
    public var purchasedAtMs: Int64

    /// Creates a purchase.
    public init(userID: String, placement: String, offeringID: String, product: String, purchasedAtMs: Int64) {
        (self.userID, self.placement, self.offeringID, self.product, self.purchasedAtMs) =
            (userID, placement, offeringID, product, purchasedAtMs)
    }
}
