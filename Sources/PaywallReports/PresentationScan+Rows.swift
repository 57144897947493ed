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

    static func distinctCount(_ values: [UInt32]) -> Int64 {
        let sorted = values.sorted()
        var count: Int64 = 0
        var previous: UInt32?
        for value in sorted where value != previous { count += 1; previous = value }
        return count
    }

    func encounterRows() -> [[ReportValue]] {
        groupKeys.map { key in
            let s = groups[key.day << 32 | key.placement]!
            return [.text(days[key.day].date.description), .text(placements[key.placement]), .integer(s.presentations),
                    .integer(s.impressions), .integer(s.dwellBounces), .integer(Self.distinctCount(s.viewers)),
                    Self.rate(s.impressions, s.presentations)]
        }
    }

    func conversionRows() -> [[ReportValue]] {
        groupKeys.map { key in
            let s = groups[key.day << 32 | key.placement]!
            let sorted = s.openS.sorted()
            return [.text(days[key.day].date.description), .text(placements[key.placement]), .integer(s.impressions),
                    .integer(s.planSelected), .integer(s.purchaseStarted), .integer(s.purchased), .integer(s.restored),
                    .integer(s.dismissedCloseButton), .integer(s.dismissedContinueFree), .integer(s.unclosed),
                    .integer(s.bounces), .integer(s.cancellations), Self.rate(s.purchased, s.impressions),
                    Self.percentile(sorted, 50), Self.percentile(sorted, 90)]
        }
    }

    func summaryRows() -> [[ReportValue]] {
        var byPlacement: [Int: GroupStats] = [:]
        var runs: [Int: [[Double]]] = [:]          // each day's open_s values, per placement
        var viewers: [Int: [UInt64]] = [:]          // a bitset of customer indexes per placement
        let words = (customerCount + 63) / 64
        for (key, s) in groups {
            let placement = key & 0xFFFF_FFFF
            byPlacement[placement, default: GroupStats()].merge(counts: s)
            runs[placement, default: []].append(s.openS)
            var bits = viewers.removeValue(forKey: placement) ?? [UInt64](repeating: 0, count: words)
            bits.withUnsafeMutableBufferPointer { bits in
                for user in s.viewers where Int(user) >> 6 < bits.count { bits[Int(user) >> 6] |= 1 << (UInt64(user) & 63) }
            }
            viewers[placement] = bits
        }
        return byPlacement.keys.sorted { codePointLess(placements[$0], placements[$1]) }.map { placement in
            let s = byPlacement[placement]!
            var values = Array(runs[placement, default: []].joined())
            let distinct = viewers[placement]?.reduce(0) { $0 + Int64($1.nonzeroBitCount) } ?? 0
            return [.text(placements[placement]), .integer(s.presentations), .integer(s.impressions),
                    .integer(distinct), .integer(s.purchased), .integer(s.restored),
                    Self.rate(s.purchased, s.impressions), Self.selectPercentile(&values, 50),
                    Self.selectPercentile(&values, 90)]
        }
    }

    /// Nearest rank of `p` percent, like ``percentile(_:_:)`` but without sorting: a quickselect of
    /// rank ceil(p/100 × n) that leaves `values` partly reordered.
    static func selectPercentile(_ values: inout [Double], _ p: Int) -> ReportValue {
        guard !values.isEmpty else { return .null }
        let rank = (p * values.count + 99) / 100 - 1
        return values.withUnsafeMutableBufferPointer { v in
            var low = 0, high = v.count - 1
            while low < high {
                let pivot = median(v[low], v[(low + high) / 2], v[high])
                var i = low, j = high
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while pivot < v[j] { j -= 1 }
                    if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
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
            return codePointLess(products.names[$0 & 0xFFFF_FFFF], products.names[$1 & 0xFFFF_FFFF])
        }.map { key in
            let count = productCounts[key]!
            return [.text(placements[key >> 32]), .text(products.names[key & 0xFFFF_FFFF]), .integer(count),
                    Self.rate(count, totals[key >> 32]!)]
        }
    }

    /// Cohorts: every customer's first impression per placement (all history) that falls in the range.
    func cohortRows() -> [[ReportValue]] {
        let sortedPurchases = purchases.sorted { $0.user != $1.user ? $0.user < $1.user : $0.at < $1.at }
        var offsets = [Int](repeating: 0, count: firsts.customerCount + 1)   // purchases of user u: offsets[u]..<offsets[u+1]
        var cursor = 0
        for user in 0...firsts.customerCount {
            while cursor < sortedPurchases.count, Int(sortedPurchases[cursor].user) < user { cursor += 1 }
            offsets[user] = cursor
        }
        let rangeStart = days.first?.startMs ?? 0, rangeEnd = days.last?.endMs ?? 0
        let starts = days.map(\.startMs)
        var cohorts: [Int: (customers: Int64, converted: Int64)] = [:]
        for user in 0..<firsts.customerCount {
            for placement in 0..<placements.names.count {
                let first = firsts.first(user: user, placement: placement)
                guard first != CustomerFirsts.none, first >= rangeStart, first < rangeEnd,
                      placementFilter?.contains(placements[placement]) ?? true else { continue }
                var converted = false
                var index = offsets[user]
                while index < offsets[user + 1] {
                    let at = sortedPurchases[index].at
                    if at > first + windowMs { break }
                    if at >= first { converted = true; break }
                    index += 1
                }
                let key = Self.dayIndex(first, starts) << 32 | placement
                var entry = cohorts[key, default: (0, 0)]
                entry.customers += 1
                if converted { entry.converted += 1 }
                cohorts[key] = entry
            }
        }
        return cohorts.keys.sorted {
            ($0 >> 32) != ($1 >> 32) ? ($0 >> 32) < ($1 >> 32)
                : codePointLess(placements[$0 & 0xFFFF_FFFF], placements[$1 & 0xFFFF_FFFF])
        }.map { key in
            let entry = cohorts[key]!
            let day = days[key >> 32]
            return [.text(day.date.description), .text(placements[key & 0xFFFF_FFFF]), .integer(entry.customers),
                    .integer(entry.converted), Self.rate(entry.converted, entry.customers),
                    .text(newestEventAt >= day.endMs + windowMs ? "true" : "false")]
        }
    }
}
