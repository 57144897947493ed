import PaywallCore
import PaywallSQLite

/// One report day's share of the native scan — the nightly job's rollup per day and placement.
///
/// It holds, for the presentations whose first event falls on the day: per placement the counts of
/// funnels.md; per (placement, platform, app version) of the first event the same counts, the
/// distinct viewers and the sorted `open_s` values (a placement's viewers and `open_s` values are
/// its segments' lists taken together, so they are kept once); the purchases per (placement,
/// product); each (customer, placement)'s earliest impression among them; their purchases; and per
/// (placement, offering) the impressions and the distinct customers and converted customers.
/// Merging the partials of every day (``PresentationScan/merge(_:start:end:)``) gives exactly the
/// state one scan of every presentation gives, so the nightly job rescans only the days that
/// received events and reads the rest from `report_day_partials`.
struct DayPartial: Equatable {
    /// Per placement key: the day's funnel counts. Its viewers and `open_s` lists stay empty: they
    /// are the lists of the placement's ``segments``, taken together (``ListRuns``).
    var groups: [Int: PresentationScan.GroupStats] = [:]
    /// Purchases of presentations with an impression, per placement and product.
    var products: [ProductCount] = []
    /// Earliest impression per (customer, placement) among the day's presentations (``PackedFirsts``).
    var firsts = PackedFirsts()
    /// Every `purchased` close of the day's presentations (any placement, impression or not).
    var purchases: [Purchase] = []
    /// The offering comparison's counts per (placement, offering), sorted (``OfferingCount``).
    var offerings: [OfferingCount] = []
    /// `segments.csv`'s groups: per (placement, platform, app version) of the first event, sorted
    /// (``SegmentGroup/precedes(_:_:)``). Every presentation is in exactly one segment, so a
    /// placement's segments hold all of its viewers and `open_s` values.
    var segments: [SegmentGroup] = []

    /// One segment's share of the day: its funnel counts, distinct viewers and sorted `open_s`.
    struct SegmentGroup: Equatable {
        var placement: Int
        /// The first event's platform (`""` when it has none).
        var platform: String
        /// The first event's app version (`""` when it has none).
        var appVersion: String
        var stats: PresentationScan.GroupStats

        /// The stored order: by placement key, then platform and app version by code points.
        static func precedes(_ a: Self, _ b: Self) -> Bool {
            if a.placement != b.placement { return a.placement < b.placement }
            if !ExactText.same(a.platform, b.platform) { return codePointLess(a.platform, b.platform) }
            return codePointLess(a.appVersion, b.appVersion)
        }

        /// Whether both are the same segment (the same scalars, not merely canonically equivalent).
        func sameSegment(as other: Self) -> Bool {
            placement == other.placement && ExactText.same(platform, other.platform)
                && ExactText.same(appVersion, other.appVersion)
        }

        static func == (a: Self, b: Self) -> Bool { a.sameSegment(as: b) && a.stats == b.stats }
    }

    /// Purchases of one product at one placement.
    struct ProductCount: Equatable {
        var placement: Int
        var product: String
        var count: Int64

        /// The stored order: by placement key, then product by code points.
        static func precedes(_ a: Self, _ b: Self) -> Bool {
            a.placement != b.placement ? a.placement < b.placement : codePointLess(a.product, b.product)
        }

        /// Equal when the products are the same scalars (not merely canonically equivalent).
        static func == (a: Self, b: Self) -> Bool {
            a.placement == b.placement && a.count == b.count && ExactText.same(a.product, b.product)
        }
    }

    /// A customer's earliest impression at a placement.
    struct CustomerFirst: Equatable, BitwiseCopyable {
        var user: UInt32
        var placement: UInt32
        var at: Int64
    }

    /// A customer's purchase (the close's `occurred_at`).
    struct Purchase: Equatable {
        var user: UInt32
        var at: Int64
    }

    /// No presentation on the day (every presentation lands in a group).
    var isEmpty: Bool { groups.isEmpty }

    /// The rollup rows of one day (by first event time), in the columns and order of `PresentationScan.scanSQL`.
    static let daySQL = """
        SELECT first_at, placement_key, customer_key, impression_at, plan_selected, purchase_started, close_at,
               close_result, close_via, close_open_s, close_product, offering, platform, app_version
        FROM report_presentations WHERE first_at >= ?1 AND first_at < ?2
        """

    /// Scans the presentations whose first event falls in `[startMs, endMs)`.
    static func scan(_ db: Database, startMs: Int64, endMs: Int64) throws -> DayPartial {
        var builder = Builder()
        try db.forEachRow(daySQL, [.integer(startMs), .integer(endMs)]) { row in
            builder.add(PresentationScan.ScannedPresentation(row), RowDetails(row: row))
            return true
        }
        return builder.finish()
    }

    /// The partial of presentations folded in memory (each one whole: the folds of presentations
    /// that were not stored before), their close texts in `texts`.
    static func build(_ folds: some Sequence<PresentationFold>, texts: TextTable) -> DayPartial {
        var builder = Builder()
        let words = CloseWords(texts)
        for fold in folds {
            builder.add(
                PresentationScan.ScannedPresentation(fold, words: words),
                FoldDetails(fold: fold, texts: texts, words: words))
        }
        return builder.finish()
    }

    /// Accumulates presentations into a partial.
    struct Builder {
        private var partial = DayPartial()
        private var productNames = TextTable()
        private var productCounts: [Int: Int64] = [:]
        private var impressions: [CustomerFirst] = []
        private var offerings = OfferingCount.Builder()
        private var contexts = TextTable()
        /// Segment groups, found by ``segmentSlots`` from the packed (placement, platform, app
        /// version) indexes: an integer key and a group updated in place, no `String` per row (the
        /// rescan of a day adds every presentation here).
        private var segmentStats: [PresentationScan.GroupStats] = []
        private var segmentKeys: [PresentationScan.SegmentKey] = []
        private var segmentSlots = IntSlots()

        /// Adds one presentation.
        mutating func add<Details: PresentationDetails>(_ p: PresentationScan.ScannedPresentation, _ details: Details) {
            if let impressionAt = p.impressionAt {
                impressions.append(
                    CustomerFirst(user: p.user, placement: UInt32(truncatingIfNeeded: p.placement), at: impressionAt))
            }
            if let purchaseAt = p.purchaseAt { partial.purchases.append(Purchase(user: p.user, at: purchaseAt)) }
            if p.impressionAt != nil { offerings.add(p, details) }
            let (platform, appVersion) = details.contextIndexes(&contexts)
            let packed = p.placement << 40 | Int(platform) << 20 | Int(appVersion)
            let (slot, isNew) = segmentSlots.slot(packed)
            if isNew {
                segmentStats.append(PresentationScan.GroupStats())
                segmentKeys.append(
                    PresentationScan.SegmentKey(placement: p.placement, platform: platform, appVersion: appVersion))
            }
            // The placement's group is the sum of its segments' counts (``finish()``): one group per
            // presentation updated here, its lists kept once.
            PresentationScan.add(details, p, to: &segmentStats[slot]) { product in
                productCounts[p.placement << 32 | Int(productNames.index(product)), default: 0] += 1
            }
        }

        /// The partial, in its canonical form (sorted, viewers without repeats).
        mutating func finish() -> DayPartial {
            for (key, stats) in zip(segmentKeys, segmentStats) {
                partial.groups[key.placement, default: PresentationScan.GroupStats()].addCounts(stats)
            }
            partial.products = productCounts.map {
                ProductCount(
                    placement: $0.key >> 32, product: productNames.texts[$0.key & 0xFFFF_FFFF], count: $0.value)
            }.sorted(by: ProductCount.precedes)
            // Earliest impression per (customer, placement): sort, keep the first of each pair.
            impressions.sort { ($0.placement, $0.user, $0.at) < ($1.placement, $1.user, $1.at) }
            var firsts: [CustomerFirst] = []
            for first in impressions
            where firsts.last.map({ $0.user != first.user || $0.placement != first.placement }) ?? true {
                firsts.append(first)
            }
            partial.firsts = PackedFirsts(sortedUnique: firsts)
            partial.purchases.sort { ($0.user, $0.at) < ($1.user, $1.at) }
            partial.offerings = offerings.finish()
            partial.segments = zip(segmentKeys, segmentStats).map { key, stats in
                var stats = stats
                stats.normalize()
                return SegmentGroup(
                    placement: key.placement, platform: contexts[key.platform] ?? "",
                    appVersion: contexts[key.appVersion] ?? "", stats: stats)
            }.sorted(by: SegmentGroup.precedes)
            return partial
        }
    }
}

extension PresentationScan.GroupStats {
    /// Viewers sorted without repeats, `open_s` sorted: the canonical form kept per day.
    mutating func normalize() {
        viewers.sort()
        var unique: [UInt32] = []
        unique.reserveCapacity(viewers.count)
        for viewer in viewers where unique.last != viewer { unique.append(viewer) }
        viewers = unique
        openS.sort()
    }
}
