/// A day partial's earliest impression per (customer, placement), eight bytes each: per placement,
/// runs of (customer, milliseconds after the run's base), each run sorted by customer.
///
/// Design note (memory): the nightly job keeps every day's firsts as decoded until the cohorts are
/// counted (``CustomerFirsts``), and as ``DayPartial/CustomerFirst`` (customer, placement and time:
/// 16 bytes) they were half of a decoded partial: 1.9 of 4.0 MB a day at 10M events, 58 MB over a
/// 30-day window. Grouped by placement, an entry needs only the customer and the time after its
/// run's base (a day's impressions span hours, so 32 bits of milliseconds hold them; times further
/// apart than 49 days, which only odd clocks give, start another run).
struct PackedFirsts: Equatable {
    /// One placement's firsts whose times lie within 2³² ms of `base`.
    struct Run: Equatable {
        var placement: UInt32
        /// The time the entries count from (the earliest of the run's times, or that plus a multiple of 2³² ms).
        var base: Int64
        /// `customer << 32 | (time − base)`, ascending (one entry per customer).
        var entries: [UInt64]

        /// The customer of entry `index`.
        func user(_ index: Int) -> UInt32 { UInt32(truncatingIfNeeded: entries[index] >> 32) }

        /// The time of entry `index`.
        func at(_ index: Int) -> Int64 { base &+ Int64(entries[index] & 0xFFFF_FFFF) }
    }

    /// Sorted by placement, then base; a placement's runs have distinct bases.
    private(set) var runs: [Run] = []

    /// No firsts.
    init() {}

    /// Runs as decoded; `nil` unless they are in the canonical order (by placement then base, each
    /// run's customers strictly ascending), which the cohorts' merge relies on.
    init?(runs: [Run]) {
        for (index, run) in runs.enumerated() {
            if index > 0 {
                let previous = runs[index - 1]
                guard (previous.placement, previous.base) < (run.placement, run.base) else { return nil }
            }
            guard !run.entries.isEmpty else { return nil }
            var last: UInt64?
            for entry in run.entries {
                if let last, entry >> 32 <= last >> 32 { return nil }
                last = entry
            }
        }
        self.runs = runs
    }

    /// Packs firsts sorted by (placement, customer), one per pair.
    init(sortedUnique firsts: [DayPartial.CustomerFirst]) {
        var start = 0
        while start < firsts.count {
            let placement = firsts[start].placement
            var end = start
            var low = Int64.max
            var high = Int64.min
            while end < firsts.count, firsts[end].placement == placement {
                low = min(low, firsts[end].at)
                high = max(high, firsts[end].at)
                end += 1
            }
            let group = firsts[start..<end]
            if UInt64(bitPattern: high &- low) >> 32 == 0 {
                runs.append(Run(placement: placement, base: low, entries: group.map { Self.entry($0, base: low) }))
            } else {
                // Times further apart than 2³² ms: one run per 2³² ms step from the earliest.
                var byStep: [UInt64: [UInt64]] = [:]
                for first in group {
                    let step = UInt64(bitPattern: first.at &- low) >> 32
                    byStep[step, default: []].append(Self.entry(first, base: low &+ Int64(bitPattern: step << 32)))
                }
                for step in byStep.keys.sorted() {
                    runs.append(
                        Run(placement: placement, base: low &+ Int64(bitPattern: step << 32), entries: byStep[step]!))
                }
            }
            start = end
        }
    }

    private static func entry(_ first: DayPartial.CustomerFirst, base: Int64) -> UInt64 {
        UInt64(first.user) << 32 | UInt64(bitPattern: first.at &- base)
    }

    var isEmpty: Bool { runs.isEmpty }

    /// How many (customer, placement) pairs.
    var count: Int { runs.reduce(0) { $0 + $1.entries.count } }

    /// Every first, sorted by (placement, customer).
    var all: [DayPartial.CustomerFirst] {
        var firsts: [DayPartial.CustomerFirst] = []
        firsts.reserveCapacity(count)
        var index = 0
        while index < runs.count {
            var end = index + 1
            while end < runs.count, runs[end].placement == runs[index].placement { end += 1 }
            let start = firsts.count
            for run in runs[index..<end] {
                for entry in run.entries.indices {
                    firsts.append(
                        DayPartial.CustomerFirst(user: run.user(entry), placement: run.placement, at: run.at(entry)))
                }
            }
            // A placement of several runs (times 2³² ms apart): its customers put in order.
            if end - index > 1 { firsts[start...].sort { $0.user < $1.user } }
            index = end
        }
        return firsts
    }
}
