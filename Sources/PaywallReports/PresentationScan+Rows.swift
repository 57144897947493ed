import PaywallCore

/// Turns the scan's accumulators into the rows of each report, sorted by code points.
extension PresentationScan.GroupStats {
    /// Adds another group's counts (not its arrays).
    mutating func merge(counts other: Self) {
        presentations += other.presentations
        impressions += other.impressions
        purchased += other.purchased
        restored += other.restored
    }
}

extension PresentationScan {
    private var groupKeys: [(day: Int, placement: Int)] {
        groups.keys.map { (day: $0 >> 32, placement: $0 & 0xFFFF_FFFF) }.sorted {
            $0.day != $1.day ? $0.day < $1.day : codePointLess(placements[$0.placement], placements[$1.placement])
        }
    }

    static func rate(_ numerator: Int64, _ denominator: Int64) -> ReportValue {
        denominator == 0 ? .null : .real(Double(numerator) / Double(denominator))
    }

    /// Nearest rank of `p` percent over sorted values: rank ceil(p/100 × n), 1-based.
    static func percentile(_ sorted: [Double], _ p: Int) -> ReportValue {
        sorted.isEmpty ? .null : .real(sorted[(p * sorted.count + 99) / 100 - 1])
    }

    /// A (day, placement) group's lists: its segments' (``groups`` hold counts only).
    private func lists(_ key: Int) -> ListRuns { groupRuns[key] ?? ListRuns() }

    func encounterRows() -> [[ReportValue]] {
        var seen = DistinctCounter(capacity: customerCount)
        return groupKeys.map { key in
            let s = groups[key.day << 32 | key.placement]!
            return [
                .text(days[key.day].date.description), .text(placements[key.placement]), .integer(s.presentations),
                .integer(s.impressions), .integer(s.dwellBounces),
                .integer(lists(key.day << 32 | key.placement).distinctViewers(&seen)),
                Self.rate(s.impressions, s.presentations),
            ]
        }
    }

    func conversionRows() -> [[ReportValue]] {
        var scratch: [Double] = []
        return groupKeys.map { key in
            let s = groups[key.day << 32 | key.placement]!
            let opens = lists(key.day << 32 | key.placement).openPercentiles(&scratch)
            return [
                .text(days[key.day].date.description), .text(placements[key.placement]), .integer(s.impressions),
                .integer(s.planSelected), .integer(s.purchaseStarted), .integer(s.purchased), .integer(s.restored),
                .integer(s.dismissedCloseButton), .integer(s.dismissedContinueFree), .integer(s.unclosed),
                .integer(s.bounces), .integer(s.cancellations), Self.rate(s.purchased, s.impressions),
                opens.p50, opens.p90, .integer(s.dismissedGesture),
                .integer(s.abandoned),
            ]
        }
    }

    func summaryRows() -> [[ReportValue]] {
        var byPlacement: [Int: GroupStats] = [:]
        var runs: [Int: [[Double]]] = [:]  // each day's open_s values, per placement
        var viewers: [Int: [UInt64]] = [:]  // a bitset of customer indexes per placement
        let words = (customerCount + 63) / 64
        for (key, s) in groups {
            let placement = key & 0xFFFF_FFFF
            byPlacement[placement, default: GroupStats()].merge(counts: s)
            let lists = lists(key)
            runs[placement, default: []] += lists.openS
            var bits = viewers.removeValue(forKey: placement) ?? [UInt64](repeating: 0, count: words)
            bits.withUnsafeMutableBufferPointer { bits in
                for list in lists.viewers {
                    for user in list where Int(user) >> 6 < bits.count {
                        bits[Int(user) >> 6] |= 1 << (UInt64(user) & 63)
                    }
                }
            }
            viewers[placement] = bits
        }
        return byPlacement.keys.sorted { codePointLess(placements[$0], placements[$1]) }.map { placement in
            let s = byPlacement[placement]!
            var values = Array(runs[placement, default: []].joined())
            let distinct = viewers[placement]?.reduce(0) { $0 + Int64($1.nonzeroBitCount) } ?? 0
            return [
                .text(placements[placement]), .integer(s.presentations), .integer(s.impressions),
                .integer(distinct), .integer(s.purchased), .integer(s.restored),
                Self.rate(s.purchased, s.impressions), Self.selectPercentile(&values, 50),
                Self.selectPercentile(&values, 90),
            ]
        }
    }

    /// Nearest rank of `p` percent, like ``percentile(_:_:)`` but without sorting: a quickselect of
    /// rank ceil(p/100 × n) that leaves `values` partly reordered.
    static func selectPercentile(_ values: inout [Double], _ p: Int) -> ReportValue {
        guard !values.isEmpty else { return .null }
        let rank = (p * values.count + 99) / 100 - 1
        return values.withUnsafeMutableBufferPointer { v in
            var low = 0
            var high = v.count - 1
            while low < high {
                let pivot = median(v[low], v[(low + high) / 2], v[high])
                var i = low
                var j = high
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while pivot < v[j] { j -= 1 }
                    if i <= j {
                        v.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if rank <= j { high = j } else if rank >= i { low = i } else { break }
            }
            return .real(v[rank])
        }
    }

    private static func median(_ a: Double, _ b: Double, _ c: Double) -> Double {
        max(min(a, b), min(max(a, b), c))
    }

    func productMixRows() -> [[ReportValue]] {
        var totals: [Int: Int64] = [:]
        for (key, count) in productCounts { totals[key >> 32, default: 0] += count }
        return productCounts.keys.sorted {
            let (a, b) = ($0 >> 32, $1 >> 32)
            if a != b { return codePointLess(placements[a], placements[b]) }
            return codePointLess(products.texts[$0 & 0xFFFF_FFFF], products.texts[$1 & 0xFFFF_FFFF])
        }.map { key in
            let count = productCounts[key]!
            return [
                .text(placements[key >> 32]), .text(products.texts[key & 0xFFFF_FFFF]), .integer(count),
                Self.rate(count, totals[key >> 32]!),
            ]
        }
    }

    /// Cohorts: every customer's first impression per placement (all history) that falls in the range.
    ///
    /// Customer keys are dense, so the purchases are grouped by customer with a counting sort (each
    /// customer's few purchases then sorted by time) and the cohorts are counted in an array per
    /// (day, placement): no comparison sort of every purchase, no hashing per customer.
    func cohortRows() -> [[ReportValue]] {
        let customerCount = firsts.customerCount
        let placementCount = placements.names.count
        let purchaseTimes = Self.purchaseTimesByCustomer(purchases, customers: customerCount)
        let rangeStart = days.first?.startMs ?? 0
        let rangeEnd = days.last?.endMs ?? 0
        let starts = days.map(\.startMs)
        let included = (0..<placementCount).map { placementFilter?.contains(ExactText(placements[$0])) ?? true }
        var customers = [Int64](repeating: 0, count: days.count * placementCount)
        var converted = [Int64](repeating: 0, count: days.count * placementCount)
        purchaseTimes.times.withUnsafeBufferPointer { times in
            purchaseTimes.offsets.withUnsafeBufferPointer { offsets in
                firsts.forEachFirst { user, placement, first in
                    guard placement < placementCount, first >= rangeStart, first < rangeEnd, included[placement]
                    else { return }
                    let cell = Self.dayIndex(nearDay: first, starts) * placementCount + placement
                    customers[cell] += 1
                    let to = offsets[user + 1]
                    var index = offsets[user]
                    while index < to, times[index] < first { index += 1 }
                    if index < to, times[index] <= first + windowMs { converted[cell] += 1 }
                }
            }
        }
        let order = (0..<placementCount).sorted { codePointLess(placements[$0], placements[$1]) }
        var rows: [[ReportValue]] = []
        for (dayIndex, day) in days.enumerated() {
            for placement in order where customers[dayIndex * placementCount + placement] > 0 {
                let cell = dayIndex * placementCount + placement
                rows.append([
                    .text(day.date.description), .text(placements[placement]), .integer(customers[cell]),
                    .integer(converted[cell]), Self.rate(converted[cell], customers[cell]),
                    .text(newestEventAt >= day.endMs + windowMs ? "true" : "false"),
                ])
            }
        }
        return rows
    }

    /// Purchase times grouped by customer key, each customer's ascending: customer `u`'s are
    /// `times[offsets[u]..<offsets[u + 1]]`. Customers at or above `customers` have no first
    /// impression, so their purchases convert nothing and are left out.
    static func purchaseTimesByCustomer(
        _ purchases: [(user: UInt32, at: Int64)],
        customers: Int
    ) -> (offsets: [Int], times: [Int64]) {
        var offsets = [Int](repeating: 0, count: customers + 1)
        for purchase in purchases where Int(purchase.user) < customers { offsets[Int(purchase.user) + 1] += 1 }
        for user in 0..<customers { offsets[user + 1] += offsets[user] }
        var next = offsets
        var times = [Int64](repeating: 0, count: offsets[customers])
        for purchase in purchases where Int(purchase.user) < customers {
            times[next[Int(purchase.user)]] = purchase.at
            next[Int(purchase.user)] += 1
        }
        times.withUnsafeMutableBufferPointer { times in
            for user in 0..<customers where offsets[user + 1] - offsets[user] > 1 {
                if offsets[user + 1] - offsets[user] > 16 {
                    var slice = UnsafeMutableBufferPointer(rebasing: times[offsets[user]..<offsets[user + 1]])
                    slice.sort()
                    continue
                }
                // Insertion sort: a customer usually has a few purchases.
                for i in (offsets[user] + 1)..<offsets[user + 1] {
                    let value = times[i]
                    var j = i
                    while j > offsets[user], times[j - 1] > value {
                        times[j] = times[j - 1]
                        j -= 1
                    }
                    times[j] = value
                }
            }
        }
        return (offsets, times)
    }

    /// The index of the day holding `ms` (which must fall within the days), found from the
    /// 24-hour estimate and corrected by a step or two (days of 23 or 25 hours across a DST change).
    static func dayIndex(nearDay ms: Int64, _ starts: [Int64]) -> Int {
        var index = min(max(Int((ms - starts[0]) / 86_400_000), 0), starts.count - 1)
        while index > 0, ms < starts[index] { index -= 1 }
        while index + 1 < starts.count, ms >= starts[index + 1] { index += 1 }
        return index
    }
}
