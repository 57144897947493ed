import Foundation
import PaywallSQLite

/// The nightly job's rollups per day and placement: `report_day_partials` holds one ``DayPartial``
/// per report day of one time zone (`meta` key `reports.partials_timezone`).
///
/// Every rollup refresh marks the 15-minute buckets it touched in `report_dirty_buckets`, in the
/// same transaction as the fold (a presentation's first-event bucket before and after a change, and
/// every new event's bucket), so ``update(_:plan:keepPartials:)`` recomputes exactly the days that
/// hold a dirty bucket — late events included, whichever command folded them — and clears the
/// marks. A day is rescanned from the rollups, unless its only change is presentations new to the
/// store that the caller's own refresh collected (``Additions``): then their partial is added to
/// the stored one. A run in another time zone starts over from every day that has presentations.
struct NightlyPartials {
    /// Meta key of the zone the stored partials are cut in.
    static let timezoneKey = ReportSchema.partialsTimezoneKey

    /// The report days' zone.
    let calendar: DayCalendar

    /// The days an update recomputes, and how.
    struct Plan: Sendable, Equatable {
        /// Sorted: every day holding a dirty bucket, and on a rebuild every day from the first
        /// presentation's to the last one's.
        var days: [ReportDate]
        /// Every stored partial is dropped first (asked for, or the stored ones are cut in another zone).
        var rebuild: Bool
        /// The days holding a dirty bucket (recomputed even when they turn out empty).
        var dirty: Set<ReportDate>
        /// Days whose only change is new presentations (``Additions``): their partial is the stored
        /// one plus the new presentations that start on them, without a rescan.
        var additive: Set<ReportDate> = []
        /// The new presentations, when some day is additive.
        var additions: Rollup.Additions?
    }

    /// New presentations the nightly job's own rollup refresh stored (``Rollup/Additions``), with
    /// what tells whether they are the whole change since the partials were last brought up to date.
    struct Additions {
        /// What the refresh collected.
        var collected: Rollup.Additions
        /// The buckets already marked dirty before the refresh (earlier folds changed those days).
        var markedBefore: Set<Int64>
        /// The watermark after the refresh: when another fold has moved it since, the additions
        /// are not the whole change, and every dirty day is rescanned.
        var watermarkAfter: Int64
    }

    /// What an update did.
    struct Outcome {
        /// The days recomputed (sorted): every dirty day, and on a rebuild every day that has presentations.
        var recomputed: [ReportDate]
        /// The partials computed, by day (days without presentations are left out).
        var partials: [(day: ReportDay, partial: DayPartial)]
    }

    /// The days ``update(_:plan:keepPartials:)`` must recompute (with `rebuild`, every day) and which
    /// of them only gained `additions`. Call it in the same write transaction as the update, so no
    /// bucket is marked between the two.
    func plan(_ db: Database, rebuild: Bool = false, additions: Additions? = nil) throws -> Plan {
        let zone = try ReportSchema.metaValue(Self.timezoneKey, in: db)
        var days = Set<ReportDate>()
        try db.forEachRow("SELECT bucket FROM report_dirty_buckets") { row in
            days.insert(calendar.date(containing: row.int64(at: 0) * 900_000))
            return true
        }
        let dirty = days
        let rebuild = rebuild || zone != calendar.timeZone.identifier
        if rebuild {
            let bounds = try db.all(
                "SELECT (SELECT min(first_at) FROM report_presentations), (SELECT max(first_at) FROM report_presentations)"
            ) {
                ($0.optionalInt64(at: 0), $0.optionalInt64(at: 1))
            }.first
            if let first = bounds?.0, let last = bounds?.1 {
                var date = calendar.date(containing: first)
                let end = calendar.date(containing: last)
                while date <= end {
                    days.insert(date)
                    date = date.next
                }
            }
        }
        var plan = Plan(days: days.sorted(), rebuild: rebuild, dirty: dirty)
        let watermark = try ReportSchema.metaValue(Rollup.watermarkKey, in: db)
        if !rebuild, let additions, watermark == String(additions.watermarkAfter) {
            let changed = additions.markedBefore.union(additions.collected.changedBuckets)
            plan.additive = dirty.subtracting(changed.map { calendar.date(containing: $0 * 900_000) })
            plan.additions = plan.additive.isEmpty ? nil : additions.collected
        }
        return plan
    }

    /// Recomputes the plan's days into `report_day_partials` (additive days from their stored
    /// partial and the new presentations, the others by a rescan) and clears the dirty marks,
    /// inside the caller's write transaction (the one that made the plan). With `keepPartials`, the outcome
    /// also holds the partials computed (for a caller that merges them itself: keep the plan short).
    /// `prebuilt`, started on the plan's additions, gives the additive days' new presentations'
    /// partials (the same as built here).
    func update(
        _ db: Database, plan: Plan, keepPartials: Bool = false, prebuilt: AdditivePartialsBuild? = nil
    ) throws -> Outcome {
        if plan.rebuild { try db.run("DELETE FROM report_day_partials") }
        var outcome = Outcome(recomputed: [], partials: [])
        let store = try db.cachedStatement(
            """
            INSERT INTO report_day_partials (day_start, day_end, partial) VALUES (?1, ?2, ?3)
            ON CONFLICT (day_start) DO UPDATE SET day_end = excluded.day_end, partial = excluded.partial
            """)
        for date in plan.days {
            let day = try calendar.days(from: date, through: date)[0]
            let partial: DayPartial
            if plan.additive.contains(date), let additions = plan.additions, let stored = try Self.stored(db, day) {
                if !additions.folds.contains(where: { $0.firstAt >= day.startMs && $0.firstAt < day.endMs }) {
                    // nothing new starts on this day: its partial stands
                    if keepPartials, !stored.isEmpty { outcome.partials.append((day, stored)) }
                    outcome.recomputed.append(date)
                    continue
                }
                let added =
                    prebuilt?.takePartial(startingAt: day.startMs) ?? DayPartial.build(additions, startingIn: day)
                partial = stored.isEmpty ? added : stored.merging(added)
            } else {
                partial = try DayPartial.scan(db, startMs: day.startMs, endMs: day.endMs)
            }
            if partial.isEmpty {
                try db.run("DELETE FROM report_day_partials WHERE day_start = ?", [.integer(day.startMs)])
                if plan.dirty.contains(date) { outcome.recomputed.append(date) }
                continue
            }
            store.reset()
            store.bind(day.startMs, at: 1)
            store.bind(day.endMs, at: 2)
            store.bind(Data(partial.encoded()), at: 3)
            try store.run()
            outcome.recomputed.append(date)
            if keepPartials { outcome.partials.append((day, partial)) }
        }
        try db.run("DELETE FROM report_dirty_buckets")
        try ReportSchema.setMeta(Self.timezoneKey, to: calendar.timeZone.identifier, in: db)
        return outcome
    }

    /// The stored partial of `day` (empty when none is stored); `nil` when it cannot be read.
    static func stored(_ db: Database, _ day: ReportDay) throws -> DayPartial? {
        var partial: DayPartial? = DayPartial()
        try db.forEachRow(
            "SELECT day_end, partial FROM report_day_partials WHERE day_start = ?", [.integer(day.startMs)]
        ) { row in
            partial = row.int64(at: 0) == day.endMs ? row.withUnsafeBlob(at: 1) { DayPartial(decoding: $0) } : nil
            return false
        }
        return partial
    }

    /// Plans and updates in the caller's write transaction; returns the days recomputed.
    /// With `rebuild`, every day is rescanned.
    func update(_ db: Database, rebuild: Bool = false) throws -> [ReportDate] {
        try update(db, plan: try plan(db, rebuild: rebuild)).recomputed
    }
}

/// A stored partial this program cannot read (another format, damaged bytes).
struct UnreadablePartial: Error {}

extension DayPartial {
    /// Calls `body` with every stored partial (its day's bounds and the decoded partial, `nil` when
    /// this program cannot read its bytes: another format, damaged) in day order, until `body`
    /// returns `false`.
    ///
    /// - Throws: what `body` throws; `StorageError`.
    static func forEachStored(
        _ db: Database, _ body: (_ start: Int64, _ end: Int64, DayPartial?) throws -> Bool
    ) throws {
        try db.forEachRow("SELECT day_start, day_end, partial FROM report_day_partials ORDER BY day_start") { row in
            try body(row.int64(at: 0), row.int64(at: 1), row.withUnsafeBlob(at: 2) { DayPartial(decoding: $0) })
        }
    }
}

extension PresentationScan {
    /// Fills the scan from the stored day partials instead of scanning every presentation: the
    /// days of the report contribute their groups, products and offerings; every day contributes its
    /// customers' first impressions and purchases (cohorts span all history).
    ///
    /// - Throws: ``UnreadablePartial`` (the caller rebuilds the partials), `StorageError`.
    mutating func load(partials db: Database) throws {
        try prepare(db)
        try DayPartial.forEachStored(db) { start, end, partial in
            guard let partial else { throw UnreadablePartial() }
            merge(partial, start: start, end: end)
            return true
        }
    }

    /// Adds the partial of the day `[start, end)` (a day of any range: only the report's days add
    /// their groups and products).
    mutating func merge(_ partial: DayPartial, start: Int64, end: Int64) {
        firsts.record(list: partial.firsts)
        purchases += partial.purchases.lazy.map { (user: $0.user, at: $0.at) }
        guard let dayIndex = days.firstIndex(where: { $0.startMs == start && $0.endMs == end }) else { return }
        for (placement, stats) in partial.groups where isIncluded(placement) {
            groups[dayIndex << 32 | placement] = stats  // counts: the lists are the segments'
        }
        for product in partial.products where isIncluded(product.placement) {
            productCounts[product.placement << 32 | Int(products.index(product.product)), default: 0] += product.count
        }
        for offering in partial.offerings where isIncluded(offering.placement) {
            offerings.add(offering, day: dayIndex)
        }
        for segment in partial.segments where isIncluded(segment.placement) {
            let key = SegmentKey(
                placement: segment.placement, platform: contexts.index(segment.platform),
                appVersion: contexts.index(segment.appVersion))
            segments[key, default: GroupStats()].addCounts(segment.stats)
            segmentRuns[key, default: ListRuns()].add(segment.stats)
            groupRuns[dayIndex << 32 | segment.placement, default: ListRuns()].add(segment.stats)
        }
    }
}
