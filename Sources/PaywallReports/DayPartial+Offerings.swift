import PaywallCore

extension DayPartial {
    /// One (placement, offering)'s share of the offering comparison on one day: the presentations
    /// with an impression whose first impression had that offering, and their distinct customers
    /// and converted customers (sorted, without repeats), so days merge by set union.
    struct OfferingCount: Equatable {
        var placement: Int
        var offering: String
        var impressions: Int64
        var customers: [UInt32]
        var converted: [UInt32]

        /// The stored order: by placement key, then offering by code points.
        static func precedes(_ a: Self, _ b: Self) -> Bool {
            a.placement != b.placement ? a.placement < b.placement : codePointLess(a.offering, b.offering)
        }

        /// This count plus another day-share of the same (placement, offering).
        func merging(_ other: Self) -> Self {
            var merged = self
            merged.impressions += other.impressions
            merged.customers = DayPartial.mergeDistinct(customers, other.customers)
            merged.converted = DayPartial.mergeDistinct(converted, other.converted)
            return merged
        }

        /// Accumulates a day's presentations into its offering counts.
        struct Builder {
            private var names = OfferingNames()
            private var slots: [Int: Int] = [:]  // placement << 32 | offering index → index into the lists below
            private var keys: [Int] = []
            private var impressions: [Int64] = []
            private var customers: [[UInt32]] = []
            private var converted: [[UInt32]] = []

            /// Adds one presentation that has an impression.
            mutating func add<Details: PresentationDetails>(
                _ p: PresentationScan.ScannedPresentation, _ details: Details
            ) {
                let offering = details.withOffering { names.index(bytes: $0) }
                let key = p.placement << 32 | offering
                let slot: Int
                if let known = slots[key] {
                    slot = known
                } else {
                    slot = keys.count
                    slots[key] = slot
                    keys.append(key)
                    impressions.append(0)
                    customers.append([])
                    converted.append([])
                }
                impressions[slot] += 1
                customers[slot].append(p.user)
                if p.result == .purchased { converted[slot].append(p.user) }
            }

            /// The counts in canonical form: sorted by placement and offering, customers distinct and sorted.
            func finish() -> [OfferingCount] {
                keys.indices.map { slot in
                    OfferingCount(
                        placement: keys[slot] >> 32, offering: names[keys[slot] & 0xFFFF_FFFF],
                        impressions: impressions[slot], customers: DayPartial.distinctSorted(customers[slot]),
                        converted: DayPartial.distinctSorted(converted[slot]))
                }.sorted(by: precedes)
            }
        }
    }

    /// Two offering lists in canonical form merged (counts of the same key added, customers united).
    static func mergeOfferings(_ a: [OfferingCount], _ b: [OfferingCount]) -> [OfferingCount] {
        var merged: [OfferingCount] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && OfferingCount.precedes(a[i], b[j])) {
                merged.append(a[i])
                i += 1
            } else if i == a.count || OfferingCount.precedes(b[j], a[i]) {
                merged.append(b[j])
                j += 1
            } else {
                merged.append(a[i].merging(b[j]))
                i += 1
                j += 1
            }
        }
        return merged
    }

    /// `values` sorted, without repeats.
    static func distinctSorted(_ values: [UInt32]) -> [UInt32] {
        var sorted = values
        sorted.sort()
        return dropRepeats(sorted)
    }

    /// Two sorted lists without repeats merged into one.
    static func mergeDistinct(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        dropRepeats(mergeSorted(a, b, by: <))
    }

    /// A sorted list without its repeated values.
    static func dropRepeats(_ sorted: [UInt32]) -> [UInt32] {
        var values = sorted
        var unique = 0
        for index in values.indices where index == 0 || values[index] != values[unique - 1] {
            values[unique] = values[index]
            unique += 1
        }
        values.removeLast(values.count - unique)
        return values
    }
}
