import Foundation
import PaywallCore
import PaywallSQLite

extension FunnelReport {
    /// New presentations a nightly run's refresh keeps in memory to add to their days' partials
    /// without a rescan (NIGHTLY.md, "additive days"). It bounds the memory those folds hold until the
    /// partials are updated; a refresh with more (a large import) collects none and rescans the days.
    /// A benchmark day at 10M events is far below it.
    static let additionsLimit = 2_000_000

    /// Most dirty days the nightly run rescans while a second thread loads the other days' partials
    /// (``BackgroundPartialsLoad``): their fresh partials wait in memory until merged. A week covers
    /// late events of the last days; holding every day's partial (a rebuild) took the first nightly's
    /// peak RSS to 183–203 MB, so more days take the one-thread path, which writes each as it goes.
    static let backgroundLoadDayLimit = 7

    /// The nightly job: folds the events stored since the previous run into the rollups (late events
    /// included), then writes every CSV for the trailing window plus `run.json` into `directory`.
    ///
    /// One run at a time per database (a lease in `meta`); all or nothing (files are staged next to
    /// `directory` and renamed in, `run.json` last); a re-run with no new events that would produce
    /// identical files rewrites nothing.
    ///
    /// - Parameters:
    ///   - directory: the output folder (created if needed; only report files and `run.json` are replaced).
    ///   - days: the trailing window in days, ending today in `timezone`; `nil` for all history.
    ///   - timezone: the IANA zone that defines days (default UTC).
    ///   - cohortWindow: the cohort conversion window (default 3 days).
    ///   - version: the program version recorded in `run.json`.
    /// - Throws: ``ReportError/busy(holder:)`` when another run holds the lease, having
    ///   written nothing; other ``ReportError``s leave the previous outputs intact.
    @discardableResult
    public func nightly(
        into directory: String, days: Int? = nil, timezone: String = "UTC",
        cohortWindow: CohortWindow = .default, version: String
    ) throws -> NightlyRun {
        let startedAt = now.milliseconds()
        // run.json's duration is measured on the monotonic clock, whatever `now` says (`--now` is fixed).
        let started = ContinuousClock.now
        let stages = StageClock(onStage)
        let calendar = try DayCalendar(timeZone: timezone)
        if let days, days < 1 { throw ReportError.invalidDays(days) }
        try checkStore()
        let lease = ReportLease(connection: connection)
        try lease.acquire(now: startedAt, durationMs: 6 * 3_600_000)
        defer { lease.release() }
        let output = try OutputFolder(destination: directory, startedAt: startedAt)
        // The buckets earlier folds marked, read with the watermark: the refresh's own additions are
        // the whole change of the other dirty days only when no fold ran in between.
        let marked = try ReportError.wrap {
            try connection.transaction(.deferred) { db in
                (
                    buckets: Set(try db.all("SELECT bucket FROM report_dirty_buckets") { $0.int64(at: 0) }),
                    watermark: Int64(
                        try ReportSchema.metaValue(Rollup.watermarkKey, in: db)
                            ?? "0") ?? 0,
                    partialsZone: try ReportSchema.metaValue(NightlyPartials.timezoneKey, in: db),
                    wal: try db.scalar("PRAGMA journal_mode")?.string?.lowercased() == "wal"
                )
            }
        }
        stages.mark("lease and marks")
        // A filtered run (``contextFilter``) recomputes its window from the rollups: the day partials
        // hold every presentation, and it leaves them (and the dirty marks) to the unfiltered runs.
        let fromPartials = engine == .native && contextFilter.isEmpty
        var refreshed = try refreshRollups(collectingAdditions: fromPartials ? Self.additionsLimit : nil)
        stages.mark("rollup refresh")
        // The stored partials are read on a second thread from now on (``BackgroundPartialsLoad``),
        // when they are cut in this run's zone and the store is in WAL mode.
        let load =
            fromPartials && marked.wal && refreshed.watermarkBefore > 0
                && marked.partialsZone == calendar.timeZone.identifier
            ? try ReportError.wrap { try BackgroundPartialsLoad(path: connection.path) } : nil
        defer { load?.stop() }
        try checkFilters(placements: nil)
        var collected = refreshed.additions
        refreshed.additions = nil  // one copy, released once the partials are updated (below)
        // The new presentations' day partials are built on a second thread from now on, for the days
        // the update adds them to (``AdditivePartialsBuild``); the same condition as `additions` below.
        var prebuilt =
            fromPartials && refreshed.watermarkBefore == marked.watermark
            ? collected.map { AdditivePartialsBuild($0, calendar: calendar) } : nil
        let window = try self.window(calendar: calendar, days: days, now: startedAt)
        let reportDays = try calendar.days(from: window.from, through: window.to)
        let partials = NightlyPartials(calendar: calendar)
        let context = context(days: reportDays, timezone: timezone, cohortWindow: cohortWindow, version: version)
        var recomputed: Set<ReportDate>
        let rows: [String: Int]
        if fromPartials {
            // The native engine reads day partials: the days it recomputes are the days recomputed.
            do {
                var additions = collected.flatMap { collected in
                    refreshed.watermarkBefore == marked.watermark
                        ? NightlyPartials.Additions(
                            collected: collected, markedBefore: marked.buckets, watermarkAfter: refreshed.watermark)
                        : nil
                }
                collected = nil  // `additions` holds the only copy, which `updatePartials` releases
                let state = SubscriptionState(calendar: calendar)
                let updated = try updatePartials(
                    partials, days: reportDays, cohortWindow: cohortWindow, additions: &additions,
                    subscriptions: (state, rebuild: refreshed.watermarkBefore == 0), load: load, prebuilt: prebuilt,
                    stages: stages)
                prebuilt = nil
                recomputed = Set(updated.recomputed)
                stages.mark("day partials")
                rows = try writeFromState(
                    days: reportDays, cohortWindow: cohortWindow, context: context, scan: updated.scan,
                    state: state, into: output, stages: stages)
            } catch is UnreadablePartial {
                // Partials written by another format: rebuild them from the rollups and read again.
                recomputed = Set(
                    try ReportError.wrap {
                        try connection.transaction(.immediate) { db in
                            try Self.updateSubscriptionState(
                                SubscriptionState(calendar: calendar), db, additions: nil,
                                rebuild: refreshed.watermarkBefore == 0)
                            return try partials.update(db, rebuild: true)
                        }
                    })
                rows = try writeFromState(
                    days: reportDays, cohortWindow: cohortWindow, context: context, scan: nil,
                    state: SubscriptionState(calendar: calendar), into: output, stages: stages)
            }
        } else if !contextFilter.isEmpty {
            recomputed = Set(reportDays.map(\.date))
            rows = try write(
                days: reportDays, placements: nil, cohortWindow: cohortWindow, formulaGuard: true,
                context: context, into: output, stages: stages)
        } else {
            recomputed = Set(refreshed.touchedBuckets.map { calendar.date(containing: $0 * 900_000) })
            rows = try write(
                days: reportDays, placements: nil, cohortWindow: cohortWindow, formulaGuard: true,
                context: context, into: output, stages: stages)
        }
        var run = NightlyRun(
            daysRecomputed: recomputed.sorted().map(\.description), eventsRead: refreshed.eventsRead,
            inputWatermark: refreshed.watermark, newestEventAt: try newestEventAt(),
            windowFrom: window.from.description, windowTo: window.to.description, timezone: timezone, rows: rows,
            startedAt: startedAt, durationMs: 0, version: version, outputsChanged: true)
        // The page is compared too: it names the window, which moves with the day even when no CSV changes.
        if refreshed.eventsRead == 0, try output.matchesDestination(except: ["run.json"]),
            let current = output.currentRun,
            FileManager.default.fileExists(atPath: current.appendingPathComponent("run.json").path)
        {
            run.outputsChanged = false
            run.durationMs = Self.elapsedMilliseconds(since: started)
            output.discard()
            return run
        }
        run.durationMs = Self.elapsedMilliseconds(since: started)
        run.runID = output.runID
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try output.write("run.json", try encoder.encode(run) + Data("\n".utf8))
        try output.commit(last: "run.json")
        stages.mark("run record")
        return run
    }

    /// Brings the nightly job's subscription state (``SubscriptionState``) up to date inside the
    /// caller's write transaction, the one that then brings the day partials up to date and clears
    /// the dirty buckets the state reads (so no bucket is marked in between); a state found
    /// inconsistent with itself is emptied and built again from every subscription event, and the
    /// repair counted in `meta` (``ReportSchema/subscriptionRepairsKey``: the tests expect none).
    static func updateSubscriptionState(
        _ state: SubscriptionState, _ db: Database, additions: NightlyPartials.Additions?, rebuild: Bool,
        stages: StageClock? = nil
    ) throws {
        do {
            try state.update(db, additions: additions, rebuild: rebuild, stages: stages)
        } catch is SubscriptionState.Inconsistent {
            try repairSubscriptionState(state, db)
        }
    }

    /// Empties the subscription state and builds it again from every subscription event, in the
    /// caller's write transaction, counting the repair in `meta` (``ReportSchema/subscriptionRepairsKey``).
    static func repairSubscriptionState(_ state: SubscriptionState, _ db: Database) throws {
        try SubscriptionState.clear(db)
        try state.update(db, additions: nil, rebuild: true)
        try ReportSchema.incrementMeta(ReportSchema.subscriptionRepairsKey, in: db)
    }

    /// Writes the nightly's files from the day partials and the subscription state; a state whose
    /// money for one of the window's days cannot be read (a day no change of this run touched) is
    /// repaired (``repairSubscriptionState(_:_:)``) and the files written again.
    func writeFromState(
        days: [ReportDay], cohortWindow: CohortWindow, context: HTMLReport.Context, scan: PresentationScan?,
        state: SubscriptionState, into output: OutputFolder, stages: StageClock
    ) throws -> [String: Int] {
        let write = {
            try self.write(
                days: days, placements: nil, cohortWindow: cohortWindow, formulaGuard: true, context: context,
                fromPartials: true, scan: scan, subscriptionsFromState: true, into: output, stages: stages)
        }
        do {
            return try write()
        } catch is SubscriptionState.Inconsistent {
            try ReportError.wrap {
                try connection.transaction(.immediate) { db in try Self.repairSubscriptionState(state, db) }
            }
            return try write()
        }
    }

    /// Brings the day partials up to date, rescanning the dirty days in a write transaction, then —
    /// given the stored partials being read on a second thread (`load`, started after the refresh),
    /// when no rebuild is due and at most a week of days is dirty — merges the other days' partials
    /// it read and the fresh ones into one scan. A dirty day whose only change is new presentations
    /// from this run's refresh (`additions`) gets its stored partial plus theirs, without a rescan;
    /// `additions` is emptied once they are in, before the other days are merged. With
    /// `subscriptions`, the subscription state is brought up to date first, in the same transaction
    /// (stage `subscription state`). Returns the days recomputed and the loaded scan (`nil`: the
    /// report reads the partials itself; `load` is then stopped).
    ///
    /// - Throws: ``UnreadablePartial`` when a stored partial cannot be read; ``ReportError``.
    func updatePartials(
        _ partials: NightlyPartials, days: [ReportDay], cohortWindow: CohortWindow,
        additions: inout NightlyPartials.Additions?,
        subscriptions: (state: SubscriptionState, rebuild: Bool)? = nil, load: BackgroundPartialsLoad? = nil,
        prebuilt: AdditivePartialsBuild? = nil, stages: StageClock? = nil
    ) throws -> (recomputed: [ReportDate], scan: PresentationScan?) {
        var merge: (scan: PresentationScan, skipping: Set<Int64>)?
        let outcome: NightlyPartials.Outcome
        do {
            outcome = try ReportError.wrap {
                try connection.transaction(.immediate) { db in
                    if let subscriptions {
                        try Self.updateSubscriptionState(
                            subscriptions.state, db, additions: additions, rebuild: subscriptions.rebuild,
                            stages: stages)
                    }
                    let plan = try partials.plan(db, additions: additions)
                    guard load != nil, !plan.rebuild, plan.days.count <= Self.backgroundLoadDayLimit else {
                        load?.stop()
                        return try partials.update(db, plan: plan, prebuilt: prebuilt)
                    }
                    let starts = try plan.days.map { try partials.calendar.days(from: $0, through: $0)[0].startMs }
                    let newest = Int64(
                        try ReportSchema.metaValue(Rollup.newestKey, in: db) ?? "")
                    var scan = PresentationScan(
                        days: days, placementFilter: nil, windowMs: cohortWindow.milliseconds,
                        newestEventAt: min(newest ?? .min, now.milliseconds()))
                    try scan.prepare(db)
                    merge = (scan, Set(starts))
                    return try partials.update(db, plan: plan, keepPartials: true, prebuilt: prebuilt)
                }
            }
        } catch {
            load?.stop()  // never leave the reader running
            throw error
        }
        // The new presentations are in the day partials now: give their memory back before the other
        // days' partials are merged, so the two never add up (about 23 MB of a 10M-event store's nightly
        // peak, 207 -> 184 MiB with the additions not collected at all).
        additions = nil
        guard let load, let merge else { return (outcome.recomputed, nil) }
        var scan = try ReportError.wrap { try load.scan(into: merge.scan, skipping: merge.skipping) }
        for (day, partial) in outcome.partials { scan.merge(partial, start: day.startMs, end: day.endMs) }
        return (outcome.recomputed, scan)
    }

    /// The window: the trailing `days` ending today, or all history (first stored day through the
    /// later of today and the newest event's day). Each `min` and `max` over an indexed column is
    /// its own subquery: SQLite answers a lone `min()` or `max()` from one end of the index, but
    /// scans the whole index for the two together.
    func window(calendar: DayCalendar, days: Int?, now: Int64) throws -> (from: ReportDate, to: ReportDate) {
        let today = calendar.date(containing: now)
        if let days {
            let maximum = ReportDate.earliest.days(through: today)
            guard days <= maximum else { throw ReportError.daysBeforeHistory(days: days, maximum: maximum) }
            return (today.adding(days: -(days - 1)), today)
        }
        let bounds = try ReportError.wrap {
            try connection.all(
                """
                SELECT min(first), max(last) FROM (
                  SELECT (SELECT min(first_at) FROM report_presentations) AS first,
                         (SELECT max(first_at) FROM report_presentations) AS last
                  UNION ALL SELECT (SELECT min(bucket) FROM report_event_buckets) * 900000,
                                   (SELECT max(bucket) FROM report_event_buckets) * 900000
                  UNION ALL SELECT min(quarantined_at), max(quarantined_at) FROM quarantine
                  UNION ALL SELECT min(dropped_at), max(dropped_at) FROM drops)
                """
            ) { ($0.optionalInt64(at: 0), $0.optionalInt64(at: 1)) }.first
        }
        guard let first = bounds?.0, let last = bounds?.1 else { return (today, today) }
        return (calendar.date(containing: first), max(today, calendar.date(containing: last)))
    }

    /// Whole milliseconds on the monotonic clock since `start`.
    static func elapsedMilliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = (ContinuousClock.now - start).components
        return elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000
    }

    /// The newest stored event time the rollups have seen.
    func newestEventAt() throws -> Int64? {
        try ReportError.wrap {
            try connection.scalar("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", [.text(Rollup.newestKey)])?
                .int64
        }
    }
}
