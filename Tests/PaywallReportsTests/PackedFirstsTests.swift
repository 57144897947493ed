import PaywallSimulation
import Testing

@testable import PaywallReports

/// The day partials' firsts packed per placement at eight bytes each (``PackedFirsts``).
struct PackedFirstsTests {
    /// Firsts sorted by (placement, customer), one per pair, with times in one day, in a few days
    /// and far apart (more than 2³² ms, and the extremes of the type) at some placements.
    static func firsts(seed: UInt64) -> [DayPartial.CustomerFirst] {
        var random = SeededGenerator(seed: seed)
        var pairs: [UInt64: Int64] = [:]
        for index in 0..<4_000 {
            let placement = UInt64(index % 97 == 5 ? 1_000 : random.below(9))
            let user = UInt64(random.below(index % 3 == 0 ? 300 : 50_000))
            let at: Int64 =
                switch placement {
                case 0: 1_800_000_000_000 + Int64(random.below(86_400_000))  // one day
                case 1: 1_800_000_000_000 + Int64(random.below(20)) * 5_000_000_000  // 2³² ms apart and more
                case 2: [Int64.min, -1, 0, Int64.max, Int64.max - 1][random.below(5)]  // the extremes
                default: -86_400_000 + Int64(random.below(3 * 86_400_000))
                }
            pairs[placement << 32 | user] = at
        }
        return pairs.keys.sorted().map {
            DayPartial.CustomerFirst(user: UInt32($0 & 0xFFFF_FFFF), placement: UInt32($0 >> 32), at: pairs[$0]!)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func packingGivesEveryFirstBackInOrder(seed: UInt64) {
        // Given firsts of many placements, some with times far apart
        let firsts = Self.firsts(seed: seed)
        // When they are packed
        let packed = PackedFirsts(sortedUnique: firsts)
        // Then they come back as they were, in the same order
        #expect(packed.count == firsts.count)
        #expect(packed.all == firsts)
        // And the runs are in the canonical order: by placement then base, customers ascending,
        // several runs only for a placement whose times lie more than 2³² ms apart
        #expect(PackedFirsts(runs: packed.runs) == packed)
        #expect(packed.runs.filter { $0.placement == 0 }.count == 1)
        #expect(packed.runs.filter { $0.placement == 1 }.count > 1)
        #expect(packed.runs.filter { $0.placement == 2 }.count > 1)
        #expect(PackedFirsts(sortedUnique: []).isEmpty && PackedFirsts(sortedUnique: []).all.isEmpty)
    }

    @Test func runsOutOfTheirOrderAreRefusedWhenDecoded() {
        // Given the runs of a valid packing
        let runs = PackedFirsts(sortedUnique: Self.firsts(seed: 4)).runs
        #expect(PackedFirsts(runs: runs) != nil)
        // When a run's customers are out of order or repeated, runs are swapped, or a run is empty
        var unordered = runs
        unordered[0].entries.swapAt(0, 1)
        var repeated = runs
        repeated[0].entries[1] = repeated[0].entries[0] + 1  // same customer, later time
        var swapped = runs
        swapped.swapAt(0, 1)
        var empty = runs
        empty[0].entries = []
        // Then each is refused (the stored partial is rebuilt from the rollups)
        for bad in [unordered, repeated, swapped, empty] { #expect(PackedFirsts(runs: bad) == nil) }
    }

    @Test func aPartialsPackedFirstsSurviveEncoding() {
        // Given a partial whose firsts have several runs per placement
        var partial = DayPartial()
        partial.firsts = PackedFirsts(sortedUnique: Self.firsts(seed: 5))
        // When it is encoded and decoded; Then it is the same
        #expect(partial.encoded().withUnsafeBytes { DayPartial(decoding: $0) } == partial)
    }

    @Test func theCohortsMergeOfRunsGivesEachPairsFirstLikeTheTable() {
        // Given several days' firsts with times far apart, pairs repeated across days
        let days = (6..<12).map { Self.firsts(seed: UInt64($0)) }
        // When one keeps them as runs and another records them into its table
        var runs = CustomerFirsts()
        var table = CustomerFirsts()
        for day in days {
            runs.record(list: PackedFirsts(sortedUnique: day))
            table.record(day)
        }
        var merged: [(Int, Int, Int64)] = []
        var cells: [(Int, Int, Int64)] = []
        runs.forEachFirst { merged.append(($0, $1, $2)) }
        table.forEachFirst { cells.append(($0, $1, $2)) }
        // Then both give every pair once, in customer then placement order, with its earliest time
        #expect(!merged.isEmpty && merged.count == cells.count)
        #expect(zip(merged, cells).allSatisfy { $0 == $1 })
    }

    @Test func mergingTwoPartialsFirstsKeepsTheEarlierOfEachPair() {
        // Given two days' worth of firsts of the same day split in two (pairs in both halves)
        let a = Self.firsts(seed: 13)
        let b = Self.firsts(seed: 14)
        var left = DayPartial()
        left.firsts = PackedFirsts(sortedUnique: a)
        var right = DayPartial()
        right.firsts = PackedFirsts(sortedUnique: b)
        // When the partials are merged
        let merged = left.merging(right).firsts.all
        // Then each pair appears once with the earlier of its times, in (placement, customer) order
        var expected: [UInt64: Int64] = [:]
        for first in a + b {
            let key = UInt64(first.placement) << 32 | UInt64(first.user)
            expected[key] = min(expected[key] ?? .max, first.at)
        }
        #expect(merged.count == expected.count)
        #expect(merged.allSatisfy { expected[UInt64($0.placement) << 32 | UInt64($0.user)] == $0.at })
        #expect(zip(merged, merged.dropFirst()).allSatisfy { ($0.placement, $0.user) < ($1.placement, $1.user) })
    }
}
