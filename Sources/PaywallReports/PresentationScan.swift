import PaywallCore
import PaywallSQLite

/// The native engine: one sequential scan of `report_presentations` (all history, for cohorts)
/// feeding in-memory accumulators per (day, placement), per customer and per placement. Memory is
/// bounded by customers × placements (cohort firsts; filled from day partials, the days' firsts
/// lists instead) plus one user index and one `open_s` per presentation in the range (distinct
/// counts and nearest-rank percentiles need them).
struct PresentationScan {
    let days: [ReportDay]
    /// The placements kept (exact scalars: canonically equivalent spellings are other placements).
    let placementFilter: Set<ExactText>?
    let windowMs: Int64
    let newestEventAt: Int64

    var placements = PlacementNames()
    var customerCount = 0
    var products = TextTable()
    var groups: [Int: GroupStats] = [:]  // key: day index << 32 | placement key
    var productCounts: [Int: Int64] = [:]  // key: placement key << 32 | product index
    var firsts = CustomerFirsts()
    var purchases: [(user: UInt32, at: Int64)] = []
    /// The offering comparison's tallies per (placement, offering) over the range (``OfferingTallies``).
    var offerings = OfferingTallies()
    /// Keep only the presentations whose first event's context matches (`nil`: all). Unlike the
    /// placement filter, a presentation left out counts nowhere, not even in cohorts: the report is
    /// that of a store holding only the matching presentations.
    var contextFilter: ContextFilter? = nil
    /// The platform and app version texts of the presentations (`""` for none), by index.
    var contexts = TextTable()
    /// `segments.csv`'s groups over the range: per (placement, platform, app version) of the first
    /// event, the counts (the lists are in ``segmentRuns``).
    var segments: [SegmentKey: GroupStats] = [:]
    /// The lists, read from day partials or settled by a scan (``settleDaySegments()``), kept as they
    /// came (``ListRuns``): per (day index << 32 | placement key) its segments' viewers and `open_s`,
    /// and per segment its days' (``groups`` and ``segments`` hold counts only).
    var groupRuns: [Int: ListRuns] = [:]
    var segmentRuns: [SegmentKey: ListRuns] = [:]
    /// What a scan adds, per (day index, segment), until ``settleDaySegments()`` hands it on: the
    /// counts to ``groups`` and ``segments``, the lists to ``groupRuns`` and ``segmentRuns``.
    ///
    /// Design note (memory): a presentation's viewer and `open_s` value are kept once, in its day's
    /// segment, and a (day, placement) group's lists are its segments' (as in a day partial), instead
    /// of once per group and again per segment. At 10M events the two copies and their growth room
    /// took the full report's peak from about 183 MB before the segments were kept to 209 MB.
    var daySegments: [DaySegmentKey: GroupStats] = [:]
    var contextIncluded: [Int64: Bool] = [:]
    /// Whether ``scan(_:)`` decodes and adds the rows on two threads (``scanOnTwoThreads(_:)``); the
    /// one-thread loop stays as the reference the tests compare it with.
    var onTwoThreads = true
    /// Rows per batch between the two threads of ``scanOnTwoThreads(_:)`` (tests make it small).
    var batchRows = PresentationScan.pipelineBatchRows

    /// A segment: placement key and the ``contexts`` indexes of its platform and app version.
    struct SegmentKey: Hashable {
        var placement: Int
        var platform: Int32
        var appVersion: Int32
    }

    /// A segment on one day of the range (``daySegments``).
    struct DaySegmentKey: Hashable {
        var day: Int
        var segment: SegmentKey
    }

    struct GroupStats: Equatable {
        var presentations: Int64 = 0, impressions: Int64 = 0, dwellBounces: Int64 = 0
        var planSelected: Int64 = 0, purchaseStarted: Int64 = 0, purchased: Int64 = 0, restored: Int64 = 0
        var dismissedCloseButton: Int64 = 0, dismissedContinueFree: Int64 = 0, unclosed: Int64 = 0
        var bounces: Int64 = 0, cancellations: Int64 = 0
        var dismissedGesture: Int64 = 0, abandoned: Int64 = 0
        var viewers: [UInt32] = []
        var openS: [Double] = []
    }

    static let scanSQL = """
        SELECT first_at, placement_key, customer_key, impression_at, plan_selected, purchase_started, close_at,
               close_result, close_via, close_open_s, close_product, offering, platform, app_version
        FROM report_presentations
        """

    /// Scans every presentation once.
    mutating func scan(_ db: Database) throws {
        let rangeStart = days.first?.startMs ?? 0
        let rangeEnd = days.last?.endMs ?? 0
        let starts = days.map(\.startMs)
        try prepare(db)
        firsts.reserve(customers: customerCount, placements: placements.names.count)
        if onTwoThreads { return try scanOnTwoThreads(db) }
        try db.forEachRow(Self.scanSQL) { row in
            let p = ScannedPresentation(row)
            let platform = contextIndex(row, 12)
            let appVersion = contextIndex(row, 13)
            if contextFilter != nil, !isIncluded(platform: platform, appVersion: appVersion) { return true }
            if let impressionAt = p.impressionAt {
                firsts.record(user: p.user, placement: p.placement, at: impressionAt)
            }
            if let purchaseAt = p.purchaseAt { purchases.append((p.user, purchaseAt)) }
            guard p.firstAt >= rangeStart, p.firstAt < rangeEnd, isIncluded(p.placement) else { return true }
            let day = Self.dayIndex(p.firstAt, starts)
            let details = RowDetails(row: row)
            let segment = SegmentKey(placement: p.placement, platform: platform, appVersion: appVersion)
            Self.add(details, p, to: &daySegments[DaySegmentKey(day: day, segment: segment), default: GroupStats()]) {
                product in
                productCounts[p.placement << 32 | Int(products.index(product)), default: 0] += 1
            }
            if p.impressionAt != nil { offerings.add(p, details, day: day) }
            return true
        }
        settleDaySegments()
    }

    /// Hands ``daySegments`` on: their counts added to their (day, placement) groups and their
    /// segments, their lists (shared, not copied) to both groups' and segments' ``ListRuns``.
    mutating func settleDaySegments() {
        for (key, stats) in daySegments {
            let group = key.day << 32 | key.segment.placement
            groups[group, default: GroupStats()].addCounts(stats)
            segments[key.segment, default: GroupStats()].addCounts(stats)
            groupRuns[group, default: ListRuns()].add(stats)
            segmentRuns[key.segment, default: ListRuns()].add(stats)
        }
        daySegments = [:]
    }

    /// The ``contexts`` index of column `column`'s text, `""` for `NULL` (no context is its own segment).
    mutating func contextIndex(_ row: Row, _ column: Int) -> Int32 {
        contexts.index(orEmpty: row, column)
    }

    /// Whether a presentation with these ``contexts`` indexes passes ``contextFilter`` (cached per pair).
    mutating func isIncluded(platform: Int32, appVersion: Int32) -> Bool {
        guard let contextFilter else { return true }
        let key = Int64(platform) << 32 | Int64(appVersion)
        if let cached = contextIncluded[key] { return cached }
        let included = contextFilter.matches(
            platform: contexts[platform] ?? "", appVersion: contexts[appVersion] ?? "")
        contextIncluded[key] = included
        return included
    }

    /// Loads the placement names and the customer count (the size of the per-customer arrays).
    mutating func prepare(_ db: Database) throws {
        try placements.load(db)
        customerCount = Int(try db.scalar("SELECT coalesce(max(key), 0) + 1 FROM report_customers")?.int64 ?? 1)
        offerings.customerCount = customerCount
        offerings.dayCount = days.count
    }

    /// The columns of a `scanSQL` row that every scan reads, decoded once.
    struct ScannedPresentation {
        let firstAt: Int64
        let placement: Int
        let user: UInt32
        let impressionAt: Int64?
        let closed: Bool
        /// The close's `occurred_at`, `nil` when unclosed.
        let closeAt: Int64?
        /// The close's `result` (``PresentationScan/result(_:_:)``), `nil` when unclosed.
        let result: CloseResult?

        init(firstAt: Int64, placement: Int, user: UInt32, impressionAt: Int64?, closeAt: Int64?, result: CloseResult?)
        {
            (self.firstAt, self.placement, self.user, self.impressionAt) = (firstAt, placement, user, impressionAt)
            (self.closeAt, self.closed, self.result) = (closeAt, closeAt != nil, result)
        }

        init(_ row: Row) {
            firstAt = row.int64(at: 0)
            placement = Int(row.int64(at: 1))
            user = UInt32(truncatingIfNeeded: row.int64(at: 2))
            impressionAt = row.optionalInt64(at: 3)
            closeAt = row.optionalInt64(at: 6)
            closed = closeAt != nil
            result = closed ? PresentationScan.result(row, 7) : nil
        }

        /// The close's time when it is `purchased` (a cohort purchase, at any placement).
        var purchaseAt: Int64? { result == .purchased ? closeAt : nil }
    }

    /// Adds one presentation (`p`, with the rest of its columns in `details`) to its (day,
    /// placement) group, in place.
    static func add<Details: PresentationDetails>(
        _ details: Details, _ p: ScannedPresentation, to stats: inout GroupStats,
        purchasedProduct: (String) -> Void
    ) {
        stats.presentations += 1
        guard p.impressionAt != nil else {
            if p.closed { stats.dwellBounces += 1 }
            return
        }
        let started = details.purchaseStarted
        stats.impressions += 1
        stats.viewers.append(p.user)
        if details.planSelected { stats.planSelected += 1 }
        if started { stats.purchaseStarted += 1 }
        guard p.closed else {
            stats.unclosed += 1
            return
        }
        stats.openS.append(details.openS)
        // Exhaustive over the generated enums: a value the catalog adds fails to compile here until
        // the funnel says where it counts (CatalogChangeTests proves it on a scratch copy).
        switch p.result {
        case .purchased:
            stats.purchased += 1
            purchasedProduct(details.product)
        case .restored:
            stats.restored += 1
        case .dismissed:
            switch details.via {
            case .closeButton: stats.dismissedCloseButton += 1
            case .continueFree: stats.dismissedContinueFree += 1
            case .gesture: stats.dismissedGesture += 1
            // The catalog ties every via but auto to a dismissal, so this counts every abandoned close.
            case .abandoned: stats.abandoned += 1
            case .auto, nil: break
            }
            if started { stats.cancellations += 1 } else { stats.bounces += 1 }
        case nil:
            break
        }
    }

    var filterCache: [Int: Bool] = [:]
    mutating func isIncluded(_ placement: Int) -> Bool {
        guard let placementFilter else { return true }
        if let cached = filterCache[placement] { return cached }
        let included = placementFilter.contains(ExactText(placements[placement]))
        filterCache[placement] = included
        return included
    }

    /// `result`'s values, from the generated `CloseResult`.
    static let resultWords = CatalogWords<CloseResult>()
    /// `via`'s values, from the generated `CloseVia`.
    static let viaWords = CatalogWords<CloseVia>()

    /// The generated `CloseResult` of column `index`'s text, `nil` for none or another text
    /// (compared as bytes: no `String` per row).
    static func result(_ row: Row, _ index: Int) -> CloseResult? {
        row.withUnsafeText(at: index) { Self.resultWords.value(of: $0) }
    }

    /// The generated `CloseVia` of column `index`'s text, `nil` for none or another text.
    static func via(_ row: Row, _ index: Int) -> CloseVia? {
        row.withUnsafeText(at: index) { Self.viaWords.value(of: $0) }
    }

    static func dayIndex(_ ms: Int64, _ starts: [Int64]) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= ms { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

/// Placement names by their `report_placements` key.
struct PlacementNames {
    private(set) var names: [String] = []

    mutating func load(_ db: Database) throws {
        try db.forEachRow("SELECT key, placement FROM report_placements ORDER BY key") { row in
            let key = Int(row.int64(at: 0))
            if names.count <= key { names.append(contentsOf: repeatElement("", count: key + 1 - names.count)) }
            names[key] = row.string(at: 1) ?? ""
            return true
        }
    }

    subscript(key: Int) -> String { key < names.count ? names[key] : "" }
}

/// Each customer's first impression per placement: in a flat array (customers × placement stride)
/// for a scan of every presentation, or as the day partials' runs (``PackedFirsts``: one placement
/// each, sorted by customer), kept as decoded and merged when read (``forEachFirst(_:)``).
///
/// Design note: the table of a 1M-event store (231k customers × 8 placements × 8 bytes, 14.8 MB)
/// had to be allocated, filled and faulted in on every nightly run only to take the minimum of each
/// pair over the days' lists, about a tenth of the run's CPU with the cohorts' pass over every cell;
/// the lists (374k entries, sorted by customer within each placement) already are what the partials hold,
/// and a merge of them a block of customers at a time gives each pair's minimum in the same order
/// with a small reused table (a heap over the lists' heads, tried first, cost as much as the table:
/// 35 ns an entry).
struct CustomerFirsts {
    private(set) var stride = 8
    private(set) var values: [Int64] = []
    /// Day partials' firsts, runs of one placement each sorted by customer (``record(list:)``).
    private(set) var lists: [PackedFirsts.Run] = []
    /// One more than the largest customer key in ``lists`` (0 when none).
    private var listCustomers = 0
    /// One more than the largest placement key in ``lists``.
    private var listPlacements = 1
    static let none = Int64.max

    /// Allocates room for `customers` × `placements` up front (the keys are dense).
    mutating func reserve(customers: Int, placements: Int) {
        while placements > stride { stride *= 2 }
        values = [Int64](repeating: Self.none, count: customers * stride)
    }

    mutating func record(user: UInt32, placement: Int, at: Int64) {
        let slot = Int(user) &* stride &+ placement
        if placement < stride, slot < values.count {
            if at < values[slot] { values[slot] = at }
            return
        }
        while placement >= stride { widen() }
        let needed = (Int(user) + 1) * stride
        if values.count < needed { values.append(contentsOf: repeatElement(Self.none, count: needed - values.count)) }
        if at < values[Int(user) * stride + placement] { values[Int(user) * stride + placement] = at }
    }

    /// Records a day partial's firsts in one pass over raw buffers (after sizing the table for the
    /// largest keys among them): merging every day's firsts is the nightly job's largest loop.
    mutating func record(_ firsts: [DayPartial.CustomerFirst]) {
        guard !firsts.isEmpty else { return }
        var widest = 0
        var largest = 0
        for first in firsts {
            widest = max(widest, Int(first.placement))
            largest = max(largest, Int(first.user))
        }
        while widest >= stride { widen() }
        let needed = (largest + 1) * stride
        if values.count < needed { values.append(contentsOf: repeatElement(Self.none, count: needed - values.count)) }
        let stride = self.stride
        values.withUnsafeMutableBufferPointer { values in
            firsts.withUnsafeBufferPointer { firsts in
                for first in firsts {
                    let slot = Int(first.user) &* stride &+ Int(first.placement)
                    if first.at < values[slot] { values[slot] = first.at }
                }
            }
        }
    }

    /// Keeps a day partial's firsts (runs of one placement, each sorted by customer) as they are, to
    /// be merged when read.
    mutating func record(list firsts: PackedFirsts) {
        for run in firsts.runs {
            lists.append(run)
            listCustomers = max(listCustomers, Int(run.user(run.entries.count - 1)) + 1)
            listPlacements = max(listPlacements, Int(run.placement) + 1)
        }
    }

    func first(user: Int, placement: Int) -> Int64 {
        let slot = user * stride + placement
        return placement < stride && slot < values.count ? values[slot] : Self.none
    }

    /// More than the largest customer key recorded (the table's rows, or the lists' largest key + 1).
    var customerCount: Int { max(values.count / stride, listCustomers) }

    /// Calls `body` with every (customer, placement) that has a first impression and the earliest
    /// one, in customer then placement order: the table's cells, or the lists merged (the earliest of
    /// a pair found in several lists).
    func forEachFirst(_ body: (_ user: Int, _ placement: Int, _ at: Int64) -> Void) {
        if lists.isEmpty {
            let stride = self.stride
            values.withUnsafeBufferPointer { values in
                for user in 0..<(values.count / stride) {
                    for placement in 0..<stride where values[user &* stride &+ placement] != Self.none {
                        body(user, placement, values[user &* stride &+ placement])
                    }
                }
            }
        } else if values.isEmpty {
            forEachMerged(body)
        } else {  // both (no caller does this): the lists into a copy of the table
            var table = CustomerFirsts()
            (table.stride, table.values) = (stride, values)
            for run in lists {
                for entry in run.entries.indices {
                    table.record(user: run.user(entry), placement: Int(run.placement), at: run.at(entry))
                }
            }
            table.forEachFirst(body)
        }
    }

    /// The lists merged a block of customers at a time: each list's entries of the block (the lists
    /// are sorted by customer, so each list is read once, front to back) take their minimum in a
    /// small table of the block's customers × the widest placement (at most 64k cells, reused), whose
    /// cells are then read in order. No heap, no table of every customer.
    private func forEachMerged(_ body: (_ user: Int, _ placement: Int, _ at: Int64) -> Void) {
        let stride = listPlacements
        let blockCustomers = max(1, 65_536 / stride)
        var block = [Int64](repeating: Self.none, count: blockCustomers * stride)
        var cursors = [Int](repeating: 0, count: lists.count)
        var blockStart = 0
        while blockStart < listCustomers {
            let blockEnd = blockStart + blockCustomers
            block.withUnsafeMutableBufferPointer { block in
                for (index, run) in lists.enumerated() {
                    let (placement, base) = (Int(run.placement), run.base)
                    run.entries.withUnsafeBufferPointer { entries in
                        var position = cursors[index]
                        while position < entries.count {
                            let entry = entries[position]
                            let user = Int(entry >> 32)
                            if user >= blockEnd { break }
                            let at = base &+ Int64(entry & 0xFFFF_FFFF)
                            let slot = (user - blockStart) &* stride &+ placement
                            if at < block[slot] { block[slot] = at }
                            position += 1
                        }
                        cursors[index] = position
                    }
                }
                for cell in 0..<block.count where block[cell] != Self.none {
                    body(blockStart + cell / stride, cell % stride, block[cell])
                    block[cell] = Self.none
                }
            }
            blockStart = blockEnd
        }
    }

    private mutating func widen() {
        let wider = stride * 2
        let rows = values.count / stride
        var copy = [Int64](repeating: Self.none, count: rows * wider)
        for user in 0..<rows {
            for placement in 0..<stride { copy[user * wider + placement] = values[user * stride + placement] }
        }
        values = copy
        stride = wider
    }
}
