import Foundation
import PaywallCore
import PaywallLock
import PaywallSimulation
import PaywallTestSupport

/// Random RevenueCat behaviour for the soak: mostly acceptance, with every failure the forwarder
/// must survive (5xx, 429 with Retry-After, refusals, hang-ups, truncated and malformed responses, slow
/// answers). Counts what it served.
final class StandInFaults: Sendable {
    private let state: Lock<(random: SeededGenerator, served: [String: Int])>

    init(seed: UInt64) { state = Lock((SeededGenerator(seed: seed), [:])) }

    var served: [String: Int] { state.withLock { $0.served } }

    func next() -> StandInResponse {
        state.withLock { state in
            let roll = Int.random(in: 0..<100, using: &state.random)
            let (name, response): (String, StandInResponse) =
                switch roll {
                case 0..<62: ("200", .accepted)
                case 62..<72: ("503", .status(503, body: "{\"message\":\"unavailable\"}"))
                case 72..<78: ("429", .retryAfter("1"))
                case 78..<83: ("400 refusal", .status(400, body: "{\"code\":7225,\"message\":\"invalid event\"}"))
                case 83..<87: ("hang-up", .hangUp)
                case 87..<91: ("truncated", .closeMidResponse)
                case 91..<94: ("malformed", .malformed)
                case 94..<97: ("500", .status(500))
                default: ("slow 200", .delayed(.milliseconds(800), .accepted))
                }
            state.served[name, default: 0] += 1
            return response
        }
    }
}
