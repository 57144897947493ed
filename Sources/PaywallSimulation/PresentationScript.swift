import Foundation
import PaywallCore

/// What one simulated presentation does, decided up front from the placement's behaviour and the
/// customer's intent, then played through a real ``PresentationTracker`` on a ``ManualClock``.
struct PresentationScript {
    enum Ending {
        case bounce(seconds: Double)
        case unclosed
        case restore
        case purchase(product: String)
        case cancelledPurchase(product: String)
        case dismiss(continueFree: Bool)
    }

    var placementName: String
    var offeringID: String
    var interruption: Bool
    var dwellSeconds: Double
    var selections: [String]
    var ending: Ending

    struct Outcome {
        var impression: Bool
        var purchased: Bool
        /// The product bought and when the paywall closed on the purchase (Unix milliseconds).
        var purchase: (product: String, atMs: Int64)? = nil
    }

    init(
        behavior: PlacementBehavior, offering: PlacementBehavior.Offering, intent: Double, unclosedShare: Double,
        random: inout SeededGenerator
    ) {
        placementName = behavior.name
        offeringID = offering.name
        interruption = random.chance(0.05)
        dwellSeconds = 1 + random.exponential(mean: behavior.meanOpenSeconds)
        selections = []
        if random.chance(behavior.bounce) {
            ending = .bounce(seconds: random.uniform(0.15...0.95))
            return
        }
        if random.chance(unclosedShare) {
            ending = .unclosed
            return
        }
        if random.chance(behavior.restore) {
            ending = .restore
            return
        }
        if random.chance(min(1, behavior.select * (0.6 + intent))) {
            selections.append(random.weighted(behavior.products))
            if random.chance(0.25) { selections.append(random.weighted(behavior.products)) }
            if random.chance(min(1, behavior.startPurchase * (0.5 + intent))) {
                let product = selections[selections.count - 1]
                let completes = random.chance(behavior.complete * offering.purchaseFactor * (0.6 + 0.4 * intent))
                ending = completes ? .purchase(product: product) : .cancelledPurchase(product: product)
                return
            }
        }
        ending = .dismiss(continueFree: random.chance(behavior.continueFree))
    }

    /// Plays the script through the tracker; tracker misuse cannot happen here, so errors are
    /// programming errors of the simulation and stop it.
    func play(startMs: Int64, userID: String, sessionID: UUID, sink: any EventSink) -> Outcome {
        let clock = ManualClock()
        let now = Now { startMs + Self.milliseconds(clock.now.offset) }
        let tracker = PresentationTracker(sink: sink, clock: clock, now: now)
        do {
            let paywall = try tracker.open(
                source: placementName, offeringID: offeringID,
                placementID: placementName, userID: userID, sessionID: sessionID)
            try paywall.checked.appeared()
            if case .bounce(let seconds) = ending {
                clock.advance(by: .milliseconds(Int64(seconds * 1_000)))
                try paywall.checked.close(.dismissed(via: .closeButton))
                return Outcome(impression: false, purchased: false)
            }
            if interruption {
                clock.advance(by: .milliseconds(400))
                paywall.disappeared()
                clock.advance(by: .seconds(25))
                try paywall.checked.appeared()
            }
            let step = Duration.milliseconds(Int64(dwellSeconds * 1_000)) / max(1, selections.count + 2)
            clock.advance(by: .seconds(1) + step)
            for product in selections {
                try paywall.checked.selectPlan(product)
                clock.advance(by: step)
            }
            switch ending {
            case .bounce: break
            case .unclosed:
                paywall.disappeared()  // the app went away and never came back
            case .restore:
                try paywall.checked.close(.restored)
            case .purchase(let product):
                try paywall.checked.startPurchase(product)
                clock.advance(by: .seconds(9))
                try paywall.checked.close(.purchased(product: product))
                return Outcome(
                    impression: true, purchased: true,
                    purchase: (product, startMs + Self.milliseconds(clock.now.offset)))
            case .cancelledPurchase(let product):
                try paywall.checked.startPurchase(product)
                clock.advance(by: .seconds(6))
                try paywall.checked.close(.dismissed(via: .closeButton))
            case .dismiss(let continueFree):
                try paywall.checked.close(.dismissed(via: continueFree ? .continueFree : .closeButton))
            }
            return Outcome(impression: true, purchased: false)
        } catch {
            preconditionFailure("the simulation misused the tracker: \(error)")
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
