import PaywallCore

/// Adding one partial to another: the partial of the union of two disjoint sets of presentations
/// of the same day, in the canonical form a scan of them all gives (so `a.merging(b)` equals the
/// scan of a's and b's presentations together, field by field).
extension DayPartial {
    /// This partial plus `other`'s presentations (which must be other presentations of the same day).
    func merging(_ other: DayPartial) -> DayPartial {
        var merged = self
        for (placement, group) in other.groups {  // counts only: the lists are the segments'
            merged.groups[placement, default: PresentationScan.GroupStats()].addCounts(group)
        }
        var counts = Dictionary(merged.products.map { (ProductKey($0), $0.count) }, uniquingKeysWith: +)
        for product in other.products { counts[ProductKey(product), default: 0] += product.count }
        merged.products = counts.map {
            ProductCount(placement: $0.key.placement, product: $0.key.product, count: $0.value)
        }
        .sorted(by: ProductCount.precedes)
        merged.firsts = PackedFirsts(sortedUnique: Self.mergeFirsts(firsts.all, other.firsts.all))
        merged.purchases = Self.mergeSorted(purchases, other.purchases) { ($0.user, $0.at) < ($1.user, $1.at) }
        merged.offerings = Self.mergeOfferings(offerings, other.offerings)
        merged.segments = Self.mergeSegments(segments, other.segments)
        return merged
    }

    /// A product of a placement, by its exact scalars (canonically equivalent spellings stay apart).
    private struct ProductKey: Hashable {
        let placement: Int
        let exact: ExactText
        var product: String { exact.text }
        init(_ count: ProductCount) { (placement, exact) = (count.placement, ExactText(count.product)) }
    }

    /// Two sorted segment lists merged, the groups of a segment in both merged into one.
    static func mergeSegments(_ a: [SegmentGroup], _ b: [SegmentGroup]) -> [SegmentGroup] {
        var merged: [SegmentGroup] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && SegmentGroup.precedes(a[i], b[j])) {
                merged.append(a[i])
                i += 1
            } else if i == a.count || SegmentGroup.precedes(b[j], a[i]) {
                merged.append(b[j])
                j += 1
            } else {
                var both = a[i]
                both.stats = a[i].stats.merging(b[j].stats)
                merged.append(both)
                i += 1
                j += 1
            }
        }
        return merged
    }

    /// Two firsts lists sorted by (placement, customer) merged, keeping the earlier impression of a pair in both.
    static func mergeFirsts(_ a: [CustomerFirst], _ b: [CustomerFirst]) -> [CustomerFirst] {
        var merged: [CustomerFirst] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && (a[i].placement, a[i].user) < (b[j].placement, b[j].user)) {
                merged.append(a[i])
                i += 1
            } else if i == a.count || (b[j].placement, b[j].user) < (a[i].placement, a[i].user) {
                merged.append(b[j])
                j += 1
            } else {
                merged.append(a[i].at <= b[j].at ? a[i] : b[j])
                i += 1
                j += 1
            }
        }
        return merged
    }

    /// Two lists sorted by `less` merged into one sorted list (every element kept).
    static func mergeSorted<T>(_ a: [T], _ b: [T], by less: (T, T) -> Bool) -> [T] {
        var merged: [T] = []
        merged.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && !less(b[j], a[i])) {
                merged.append(a[i])
                i += 1
            } else {
                merged.append(b[j])
                j += 1
            }
        }
        return merged
    }
}

extension PresentationScan.GroupStats {
    /// Adds another group's 14 counts (not its viewers or `open_s` values). Field by field, not through
    /// a list of key paths: each key path access is a runtime call, and the nightly job adds the
    /// counts of every segment of every day (about 7,000 groups at 1M events).
    mutating func addCounts(_ o: Self) {
        presentations += o.presentations
        impressions += o.impressions
        dwellBounces += o.dwellBounces
        planSelected += o.planSelected
        purchaseStarted += o.purchaseStarted
        purchased += o.purchased
        restored += o.restored
        dismissedCloseButton += o.dismissedCloseButton
        dismissedContinueFree += o.dismissedContinueFree
        unclosed += o.unclosed
        bounces += o.bounces
        cancellations += o.cancellations
        dismissedGesture += o.dismissedGesture
        abandoned += o.abandoned
    }

    /// This group plus another's presentations of the same (day, placement), both in canonical form.
    func merging(_ other: Self) -> Self {
        var merged = self
        merged.addCounts(other)
        merged.viewers = DayPartial.mergeDistinct(viewers, other.viewers)
        merged.openS = DayPartial.mergeSorted(openS, other.openS, by: <)
        return merged
    }
}
