import Foundation
import PaywallCore

/// One simulated customer: installs on some day, meets onboarding, comes back on later days and
/// meets other placements, and may buy — sometimes days after the first impression, as intent
/// grows with each encounter. Stops seeing paywalls once subscribed.
struct SimulatedCustomer {
    let userID: String
    let index: Int
    let installDay: Int
    var intent: Double
    var presentations = 0
    var firstImpressionDay: Int?
    var boughtOnDay: Int?
    /// The purchase made, if any (what the subscription side of the simulation starts from).
    var purchase: SimulatedPurchase?

    init(index: Int, scenario: DemoScenario, random: inout SeededGenerator) {
        userID = String(format: "demo_user_%05d", index)
        self.index = index
        installDay = Int(random.uniform(0...Double(scenario.days) - 0.001))
        let base = random.uniform(0...1)
        intent = base * base
    }

    mutating func live(scenario: DemoScenario, sink: CountingRouter, random: inout SeededGenerator) {
        var lastActiveDay = installDay
        for day in installDay..<scenario.days where boughtOnDay == nil {
            let sinceInstall = Double(day - installDay)
            let active = day == installDay || random.chance(0.5 * exp(-sinceInstall / 9) + 0.07)
            guard active else { continue }
            let offline = random.chance(scenario.lateShare) && day >= scenario.days - scenario.lateDays
            let sessions = day == installDay ? 1 : (random.chance(0.3) ? 2 : 1)
            var clockMs =
                scenario.startMs + Int64(day) * PopulationSimulator.dayMs
                + Int64(random.uniform(7 * 3_600...21 * 3_600) * 1_000)
            for session in 0..<sessions where boughtOnDay == nil {
                let sessionID = UUIDv7.make(milliseconds: clockMs, using: &random)
                let placement: String? =
                    if day == installDay && session == 0 {
                        random.chance(0.92) ? "onboarding" : nil
                    } else {
                        pickPlacement(day: day, lastActiveDay: lastActiveDay, random: &random)
                    }
                if let placement {
                    let behavior = scenario.behavior(placement)
                    let script = PresentationScript(
                        behavior: behavior, offering: offering(at: behavior), intent: intent,
                        unclosedShare: scenario.unclosedShare, random: &random)
                    let outcome = script.play(
                        startMs: clockMs, userID: userID, sessionID: sessionID,
                        sink: sink.sink(late: offline))
                    presentations += 1
                    if outcome.impression, firstImpressionDay == nil { firstImpressionDay = day }
                    if outcome.purchased { boughtOnDay = day }
                    if let bought = outcome.purchase {
                        purchase = SimulatedPurchase(
                            userID: userID, placement: placement, offeringID: script.offeringID,
                            product: bought.product,
                            purchasedAtMs: bought.atMs)
                    }
                    intent = min(1, intent + 0.06)
                }
                clockMs += Int64(random.uniform(600...7_200) * 1_000)
            }
            lastActiveDay = day
        }
    }

    /// The offering this customer is assigned to at a placement: fixed per (customer, placement), as
    /// an A/B test assigns it, drawn from a hash of both (not from the generator, so the rest of the
    /// simulation draws the same numbers whatever the offerings).
    func offering(at behavior: PlacementBehavior) -> PlacementBehavior.Offering {
        guard behavior.offerings.count > 1 else { return behavior.offerings[0] }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over the customer index and the placement name
        for byte in withUnsafeBytes(of: UInt64(index).littleEndian, Array.init) + Array(behavior.name.utf8) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        hash ^= hash >> 33  // a finalizer, so neighbouring customers spread over the whole range
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        var draw = Double(hash >> 11) / Double(1 << 53)
        for offering in behavior.offerings {
            if draw < offering.share { return offering }
            draw -= offering.share
        }
        return behavior.offerings[behavior.offerings.count - 1]
    }

    func pickPlacement(day: Int, lastActiveDay: Int, random: inout SeededGenerator) -> String? {
        guard random.chance(0.55) else { return nil }
        var options: [(String, Double)] = [("feature_gate", 0.38), ("limit_reached", 0.22), ("settings", 0.14)]
        if day - installDay >= 3 { options.append(("promo_banner", 0.14)) }
        if day - lastActiveDay >= 4 { options.append(("winback", 0.6)) }
        return random.weighted(options)
    }
}
