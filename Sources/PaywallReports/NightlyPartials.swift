import Foundation
import PaywallSQLite

/// The nightly job's rollups per day and placement: `report_day_partials` holds one ``DayPartial``
/// per report day of one time zone (`meta` key `reports.partials_timezone`).
///
/// Every rollup refresh marks the 15-minute buckets it touched in `report_dirty_buckets`, in the
/// same transaction as the fold (a presentation's first-event bucket before and after a change, and
/// every new event's bucket), so ``update(_:)`` rescans exactly the days that hold a dirty bucket —
/// late events included, whichever command folded them — and clears the marks. A run in another time
/// zone starts over from every day that has presentations.
struct NightlyPartials {
    /// Meta key of the zone the stored partials are cut in.
    static let timezoneKey = "reports.partials_timezone"

    /// The report days' zone.
    let calendar: DayCalendar

    /// Brings the stored partials up to date with the rollups, inside the caller's write
    /// transaction; returns the days rescanned (sorted). With `rebuild`, every day is rescanned.
    func update(_ db: Database, rebuild: Bool = false) throws -> [ReportDate] {
        let zone = try db.scalar("SELECT value FROM meta WHERE key = ?", [.text(Self.timezoneKey)])?.string
        var dirty = Set<ReportDate>()
        try db.forEachRow("SELECT bucket FROM report_dirty_buckets") { row in
            dirty.insert(calendar.date(containing: row.int64(at: 0) * 900_000))
            return true
        }
        var span = Set<ReportDate>()
        if rebuild || zone != calendar.timeZone.identifier {
            try db.run("DELETE FROM report_day_partials")
            let bounds = try db.all("SELECT (SELECT min(first_at) FROM report_presentations), (SELECT max(first_at) FROM report_presentations)") {
                ($0.optionalInt64(at: 0), $0.optionalInt64(at: 1))
            }.first
            if let first = bounds?.0, let last = bounds?.1 {
                var date = calendar.date(containing: first)
                let end = calendar.date(containing: last)
                while date <= end { span.insert(date); date = date.next }
            }
        }
        // Rescanned: every dirty day, and on a rebuild every day that has presentations.
        var rescanned = dirty
        let store = try db.cachedStatement("""
            INSERT INTO report_day_partials (day_start, day_end, partial) VALUES (?1, ?2, ?3)
            ON CONFLICT (day_start) DO UPDATE SET day_end = excluded.day_end, partial = excluded.partial
            """)
        for date in dirty.union(span) {
            let day = try calendar.days(from: date, through: date)[0]
            let partial = try DayPartial.scan(db, startMs: day.startMs, endMs: day.endMs)
            if partial.isEmpty {
                try db.run("DELETE FROM report_day_partials WHERE day_start = ?", [.integer(day.startMs)])
                continue
            }
            store.reset()
            store.bind(day.startMs, at: 1)
            store.bind(day.endMs, at: 2)
            store.bind(Data(partial.encoded()), at: 3)
            try store.run()
            rescanned.insert(date)
        }
        try db.run("DELETE FROM report_dirty_buckets")
        try db.run("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                   [.text(Self.timezoneKey), .text(calendar.timeZone.identifier)])
        return rescanned.sorted()
    }
}

/// A stored partial this program cannot read (another format, damaged bytes).
struct UnreadablePartial: Error {}

extension PresentationScan {
    /// Fills the scan from the stored day partials instead of scanning every presentation: the
    /// days of the report contribute their groups and products; every day contributes its
    /// customers' first impressions and purchases (cohorts span all history).
    ///
    /// - Throws: ``UnreadablePartial`` (the caller rebuilds the partials), `StorageError`.
    mutating func load(partials db: Database) throws {
        try prepare(db)
        let dayIndex = Dictionary(uniqueKeysWithValues: days.enumerated().map { ($0.element.startMs, $0.offset) })
        try db.forEachRow("SELECT day_start, day_end, partial FROM report_day_partials ORDER BY day_start") { row in
            let start = row.int64(at: 0)
            let index = dayIndex[start].flatMap { days[$0].endMs == row.int64(at: 1) ? $0 : nil }
            guard let partial = row.withUnsafeBlob(at: 2, { DayPartial(decoding: $0) }) else { throw UnreadablePartial() }
            merge(partial, dayIndex: index)
            return true
        }
    }

    /// Adds one day's partial; `dayIndex` is its index in ``days``, `nil` when it is outside them.
    mutating func merge(_ partial: DayPartial, dayIndex: Int?) {
        firsts.record(partial.firsts)
        purchases += partial.purchases.lazy.map { (user: $0.user, at: $0.at) }
        guard let dayIndex else { return }
        for (placement, stats) in partial.groups where isIncluded(placement) {
            groups[dayIndex << 32 | placement] = stats
        }
        for product in partial.products where isIncluded(product.placement) {
            productCounts[product.placement << 32 | products.index(product.product), default: 0] += product.count
        }
    }
}
