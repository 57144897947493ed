import PaywallStore
import Testing

struct FlushPolicyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var trigger: FlushPolicy.Trigger
        var held: Int
        var drops: Int
        var retrying: Bool
        var expected: FlushPolicy.Decision
        var testDescription: String { "\(trigger) held=\(held) drops=\(drops) retrying=\(retrying) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(trigger: .size, held: 99, drops: 0, retrying: false, expected: .wait),
        Case(trigger: .size, held: 100, drops: 0, retrying: false, expected: .commit),
        Case(trigger: .size, held: 500, drops: 0, retrying: true, expected: .wait),
        Case(trigger: .interval, held: 0, drops: 0, retrying: false, expected: .wait),
        Case(trigger: .interval, held: 1, drops: 0, retrying: false, expected: .commit),
        Case(trigger: .interval, held: 0, drops: 3, retrying: false, expected: .commit),
        Case(trigger: .interval, held: 5, drops: 0, retrying: true, expected: .commit),
        Case(trigger: .flush, held: 0, drops: 0, retrying: false, expected: .commit),
        Case(trigger: .flush, held: 7, drops: 0, retrying: true, expected: .commit),
        Case(trigger: .shutdown, held: 0, drops: 0, retrying: true, expected: .commit),
    ]

    @Test(arguments: cases)
    func decidesWhenToCommit(_ row: Case) {
        let policy = FlushPolicy(batchSize: 100, capacity: 1_000, interval: .seconds(1))
        #expect(
            policy.decide(trigger: row.trigger, held: row.held, unsavedDrops: row.drops, retrying: row.retrying)
                == row.expected)
    }

    @Test(arguments: [(0, true), (999, true), (1_000, false), (1_500, false)])
    func admitsUntilTheBoundThenDropsTheNewest(held: Int, admitted: Bool) {
        #expect(FlushPolicy(batchSize: 100, capacity: 1_000).admits(held: held) == admitted)
    }

    @Test func neverHasACapacityBelowTheBatchSize() {
        let policy = FlushPolicy(batchSize: 500, capacity: 10)
        #expect(policy.capacity == 500)
        #expect(FlushPolicy(batchSize: 0).batchSize == 1)
    }
}
