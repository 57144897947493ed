import CSystemMemory
import Dispatch
import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore

/// Computes the reports of funnels.md from a PaywallAnalytics store and writes them as CSV files.
///
/// Before reading, it folds the events stored since the last run into the report rollups
/// (``refreshRollups()``), so every report reads presentations, not events.
///
/// ```swift
/// let reports = FunnelReport(connection: try ReportSchema.open(path: dbPath), now: .system)
/// let summary = try reports.report(from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-28"),
///                                  timezone: "Europe/Berlin", into: "out/")
/// ```
public struct FunnelReport: Sendable {
    /// The store, opened with the reports' migrations (``ReportSchema/open(path:options:)``).
    public let connection: Connection
    /// The wall clock (for `run.json`, the lease and the nightly window).
    public let now: Now
    /// Events folded into the rollups per transaction (``Rollup/defaultChunkSize``).
    public var chunkSize: Int64 = Rollup.defaultChunkSize
    /// Whether a collector (`serve`) writes to this store meanwhile. The rollup refresh then folds
    /// in small chunks and leaves the write lock free between them, so the collector's commits wait
    /// for at most one small chunk, not for the whole refresh (``Rollup/sharedChunkSize``).
    public var sharesTheStoreWithACollector = false
    /// How the reports are computed (``ReportEngine/native`` by default; ``ReportEngine/sql`` runs `reports/*.sql`).
    public var engine: ReportEngine = .native
    /// The offering comparison's control wherever a placement has this offering (`nil`: each
    /// placement's offering with the most customers; funnels.md "Offering comparison").
    public var control: String?
    /// Whether a placement filter or ``control`` naming a value the store has never seen is refused
    /// (``ReportError/unknownValue(_:)``, with the nearest known values) instead of giving an empty
    /// report or the default control. Off by default; the command line turns it on.
    public var refusesUnknownFilterValues = false
    /// Keep only the presentations whose first event's platform and app version match (``ContextFilter``;
    /// empty: all). Every report, cohorts and offering comparison included, is then the report of a
    /// store holding only those presentations; `data_quality.csv` (what the store received, refused
    /// and delivered) is not filtered. A filtered nightly run recomputes its window from the rollups
    /// instead of reading the day partials, which hold every presentation.
    public var contextFilter = ContextFilter()
    /// Called while new events are folded into the rollups (the long part of a first run) with
    /// the share done, 0…1; the CLI draws its progress bar from it.
    public var progress: (@Sendable (Double) -> Void)?
    /// Called at the end of each stage of a nightly or range run (``ReportStage``: its wall and CPU
    /// time), in order; `nil` (the default) measures nothing.
    public var onStage: (@Sendable (ReportStage) -> Void)?

    /// Creates a report runner on an open store.
    public init(connection: Connection, now: Now) {
        self.connection = connection
        self.now = now
    }

    /// What a report run wrote.
    public struct Summary: Sendable, Equatable {
        /// The output folder.
        public var directory: String
        /// Data rows written per file name (headers not counted).
        public var rows: [String: Int]
        /// Events folded into the rollups before reporting.
        public var eventsRead: Int64
    }

    /// Writes every CSV of funnels.md for the inclusive date range into `directory`, all or nothing.
    ///
    /// - Parameters:
    ///   - from: the first day (in `timezone`).
    ///   - to: the last day, inclusive.
    ///   - placements: keep only these placements (`nil` or empty: all).
    ///   - timezone: the IANA zone that defines days (default UTC), DST-correct.
    ///   - cohortWindow: the cohort conversion window (default 3 days).
    ///   - formulaGuard: prefix formula-like text cells with `'` (default on).
    ///   - version: the program version shown on the HTML page.
    ///   - directory: the output folder; created if needed; only the report files (the CSVs and
    ///     `report.html`) in it are replaced.
    /// - Throws: ``ReportError``; on any failure the folder is left as it was.
    ///   ``ReportError/unknownValue(_:)`` when ``refusesUnknownFilterValues`` is on and a placement in
    ///   `placements`, or ``control``, is one the store has never seen.
    @discardableResult
    public func report(
        from: ReportDate, to: ReportDate, placements: [String]? = nil, timezone: String = "UTC",
        cohortWindow: CohortWindow = .default, formulaGuard: Bool = true, version: String = "",
        into directory: String
    ) throws -> Summary {
        let stages = StageClock(onStage)
        let calendar = try DayCalendar(timeZone: timezone)
        let days = try calendar.days(from: from, through: to)
        try checkStore()
        let output = try OutputFolder(destination: directory, startedAt: now.milliseconds())
        let refreshed = try refreshRollups()
        stages.mark("rollup refresh")
        try checkFilters(placements: placements)
        let rows = try write(
            days: days, placements: placements, cohortWindow: cohortWindow, formulaGuard: formulaGuard,
            context: context(days: days, timezone: timezone, cohortWindow: cohortWindow, version: version),
            into: output, stages: stages)
        try output.commit()
        return Summary(directory: output.destination.path, rows: rows, eventsRead: refreshed.eventsRead)
    }

    /// Folds the events stored since the last refresh into the report rollups; returns what it did.
    ///
    /// - Throws: ``ReportError/storage(_:)``.
    @discardableResult
    public func refreshRollups() throws -> RollupRefresh {
        try refreshRollups(collectingAdditions: nil)
    }

    /// ``refreshRollups()``, also collecting up to `limit` new presentations (``Rollup/Additions``).
    func refreshRollups(collectingAdditions limit: Int?) throws -> RollupRefresh {
        try ReportError.wrap {
            var rollup = Rollup(connection: connection)
            rollup.chunkSize = chunkSize
            rollup.sharesTheStore = sharesTheStoreWithACollector
            rollup.progress = progress
            rollup.collectAdditions = limit
            let result = try rollup.refresh()
            // The fold's buffers were freed on two threads; hand that memory back before the next
            // steps allocate theirs, so their peak does not stack on it (2–5 ms).
            if result.eventsRead > 0 { _ = system_memory_release() }
            var refresh = RollupRefresh(
                eventsRead: result.eventsRead, watermark: result.watermarkAfter,
                touchedBuckets: result.touchedBuckets)
            refresh.watermarkBefore = result.watermarkBefore
            refresh.additions = result.additions
            return refresh
        }
    }

    /// Runs every report inside one read transaction (one consistent snapshot) into `output`, then
    /// renders `report.html` from the same rows; returns the data rows per CSV file.
    /// With `fromPartials`, the native engine reads the nightly job's day partials (``NightlyPartials``,
    /// brought up to date by the caller) instead of scanning every presentation; a `scan` the caller
    /// already loaded them into is used as it is.
    func write(
        days: [ReportDay], placements: [String]?, cohortWindow: CohortWindow, formulaGuard: Bool,
        context: HTMLReport.Context, fromPartials: Bool = false, scan: PresentationScan? = nil,
        subscriptionsFromState: Bool = false, into output: OutputFolder, stages: StageClock? = nil
    ) throws -> [String: Int] {
        let parameters: [String: SQLValue] = [
            "days": .text(DayCalendar.json(days)),
            "placements": placements.flatMap { $0.isEmpty ? nil : .text(Self.jsonArray($0)) } ?? .null,
            "window_ms": .integer(cohortWindow.milliseconds),
            "now_ms": .integer(now.milliseconds()),
            "control": control.map { .text($0) } ?? .null,
            "newest_ms": try ReportError.wrap { try connection.withDatabase { try filteredNewest($0) } }
                .map { .integer($0) } ?? .null,
        ]
        precondition(!fromPartials || contextFilter.isEmpty, "the day partials hold every presentation: no filter")
        var tables: [ReportTable] = []
        let rows = try ReportError.wrap {
            try connection.transaction(.deferred) { db in
                if engine == .sql { try db.defineMathFunctions() }
                if engine == .sql, !contextFilter.isEmpty { try Self.shadowPresentations(db, contextFilter) }
                defer { if engine == .sql, !contextFilter.isEmpty { try? db.execute(Self.dropShadowSQL) } }
                let nowMs = now.milliseconds()
                let contextFilter = contextFilter
                let loadSubscriptions = { @Sendable (db: Database) throws -> RevenueRows in
                    RevenueRows(
                        money: subscriptionsFromState
                            ? try SubscriptionState.money(db, days: days, nowMs: nowMs)
                            : MoneyByDay(
                                attribution: try SubscriptionAttribution.load(
                                    db, nowMs: nowMs, contextFilter: contextFilter), days: days))
                }
                // The nightly job's subscription money (read from its state) is read and summed as one
                // more task beside the report files' (``nativeRows``): the only task that uses the
                // connection, while this thread waits for them all. A full attribution (any other
                // report) runs after them instead: its reading's memory would add to theirs (at 10M
                // events with 1M subscription events, a peak of 309 MB against 275).
                let loaded = Lock<Result<RevenueRows, any Error>?>(nil)
                let lent = LentDatabase(db: db)
                var alongside: (@Sendable () -> Void)?
                if subscriptionsFromState {
                    alongside = {
                        let money = Result { try loadSubscriptions(lent.db) }
                        loaded.withLock { $0 = money }
                    }
                }
                let computed =
                    engine == .native
                    ? try nativeRows(
                        db, days: days, placements: placements, cohortWindow: cohortWindow,
                        fromPartials: fromPartials, scan: scan, alongside: alongside) : [:]
                stages?.mark("funnels")
                var rows: [String: Int] = [:]
                let fromTask = try loaded.withLock { $0 }?.get()
                let subscriptions = try fromTask ?? loadSubscriptions(db)
                stages?.mark("subscriptions")
                var conversion: [(date: String, placement: String, impressions: Int64)] = []
                for file in ReportFile.all {
                    let descriptor = try output.create(file.fileName)
                    defer { close(descriptor) }
                    var writer = CSVWriter(descriptor: descriptor, path: file.fileName, formulaGuard: formulaGuard)
                    var table: [[String]] = []
                    let subscriptionRows: [[ReportValue]]? =
                        switch file {
                        case .offeringComparison:
                            subscriptions.offeringRows(
                                try computed[file.fileName] ?? file.values(db, parameters: parameters))
                        case .dataQuality:
                            subscriptions.dataQualityRows(
                                try file.values(db, parameters: parameters), columns: ReportFile.dataQualitySQLColumns)
                        case .revenue: subscriptions.revenueRows(conversion: conversion)
                        default: nil
                        }
                    if let subscriptionRows {
                        rows[file.fileName] = try file.write(rows: subscriptionRows, to: &writer, collecting: &table)
                    } else if let native = computed[file.fileName] {
                        rows[file.fileName] = try file.write(rows: native, to: &writer, collecting: &table)
                    } else {
                        rows[file.fileName] = try file.write(
                            db, parameters: parameters, to: &writer, collecting: &table)
                    }
                    try writer.flush()
                    if file == .conversionFunnel {
                        conversion = table.map { ($0[0], $0[1], Int64($0[2]) ?? 0) }
                    }
                    tables.append(
                        ReportTable(name: String(file.fileName.dropLast(4)), columns: file.columns, rows: table))
                }
                // The page's offering trends: the native engine's from the scan above, the SQL engine's
                // from reports/offering_trends.sql (a filter's shadow still in place); money from the attribution.
                let trendCounts =
                    try computed[OfferingTrends.name]
                    ?? ReportFile.values(db, sql: OfferingTrends.sql, parameters: parameters)
                tables.append(
                    OfferingTrends.table(counts: trendCounts, money: subscriptions.money))
                return rows
            }
        }
        stages?.mark("CSV files")
        try output.write(HTMLReport.fileName, Data(HTMLReport.render(tables: tables, context: context).utf8))
        stages?.mark("page")
        return rows
    }

    /// The HTML page's context for a run over `days` (no clock time: the same data gives the same page).
    func context(days: [ReportDay], timezone: String, cohortWindow: CohortWindow, version: String) -> HTMLReport.Context
    {
        let period = days.isEmpty ? "" : "\(days[0].date) to \(days[days.count - 1].date)"
        return HTMLReport.Context(
            period: period, timezone: timezone, version: version, cohortWindow: cohortWindow.description,
            firstDay: days.first?.date.description, lastDay: days.last?.date.description)
    }

    /// The native engine's rows per file name (data quality stays in SQL: it reads small tables).
    ///
    /// `alongside`, when given, runs as one more task beside the files' (after the longest): the
    /// caller's work that needs no scan (it may use `db`: no task here does, and the calling thread waits).
    func nativeRows(
        _ db: Database, days: [ReportDay], placements: [String]?, cohortWindow: CohortWindow,
        fromPartials: Bool = false, scan loaded: PresentationScan? = nil, alongside: (@Sendable () -> Void)? = nil
    ) throws -> [String: [[ReportValue]]] {
        var scanned: PresentationScan
        if let loaded {
            scanned = loaded
        } else {
            let newest =
                try filteredNewest(db)
                ?? Int64(try ReportSchema.metaValue(Rollup.newestKey, in: db) ?? "")
            var scan = PresentationScan(
                days: days, placementFilter: placements.flatMap { $0.isEmpty ? nil : Set($0.map(ExactText.init)) },
                windowMs: cohortWindow.milliseconds, newestEventAt: min(newest ?? .min, now.milliseconds()))
            scan.contextFilter = contextFilter.isEmpty ? nil : contextFilter
            _ = system_memory_release()  // what earlier steps freed goes back before the scan's arrays
            if fromPartials { try scan.load(partials: db) } else { try scan.scan(db) }
            scanned = scan
        }
        scanned.offerings.finish()  // the day lists into the range's bitsets, counting per day
        let finished = scanned
        // The reports on two cores, each file's rows one task, the longest first (at 10M events the
        // cohorts about 45 ms, the subscription money with 1M subscription events about 35 ms
        // (`alongside`), segments 28, summary 23, conversion 12, encounter 7, the rest under 1):
        // each core takes the next task when it is free. The scan is only read from here on.
        let rows = Lock<[String: [[ReportValue]]]>([:])
        func file(_ name: String, _ compute: @escaping @Sendable () -> [[ReportValue]]) -> @Sendable () -> Void {
            {
                let computed = compute()
                rows.withLock { $0[name] = computed }
            }
        }
        let tasks =
            [file(ReportFile.cohortConversion.fileName) { finished.cohortRows() }] + (alongside.map { [$0] } ?? []) + [
                file(ReportFile.segments.fileName) { finished.segmentRows() },
                file(ReportFile.placementSummary.fileName) { finished.summaryRows() },
                file(ReportFile.conversionFunnel.fileName) { finished.conversionRows() },
                file(ReportFile.encounterFunnel.fileName) { finished.encounterRows() },
                file(ReportFile.productMix.fileName) { finished.productMixRows() },
                file(ReportFile.offeringComparison.fileName) { finished.offeringRows(control: control) },
                file(OfferingTrends.name) { finished.offeringTrendRows() },
            ]
        let next = Lock(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.withLock { index in
                    defer { index += 1 }
                    return index
                }
                guard index < tasks.count else { return }
                tasks[index]()
            }
        }
        return rows.withLock { $0 }
    }

    /// The SQL engine's filter: a temporary `report_presentations` holding only the matching rows,
    /// which the report files' unqualified `report_presentations` name (SQLite looks in `temp` first),
    /// so every file reads the presentations of the filtered store without a filter of its own.
    static func shadowPresentations(_ db: Database, _ filter: ContextFilter) throws {
        try db.execute(dropShadowSQL)
        let sql = ContextFilter.shadowSQL
        try db.run(sql, NamedParameters.values(for: sql, filterParameters(filter)))
    }

    /// With a ``contextFilter``, the newest event time of the presentations it keeps (0 when none):
    /// what a store holding only them would call its newest event. `nil` without a filter.
    func filteredNewest(_ db: Database) throws -> Int64? {
        guard !contextFilter.isEmpty else { return nil }
        let sql = ContextFilter.newestSQL
        return try db.scalar(sql, NamedParameters.values(for: sql, Self.filterParameters(contextFilter)))?.int64
    }

    /// The parameters of ``ContextFilter/shadowSQL`` and ``ContextFilter/newestSQL``.
    static func filterParameters(_ filter: ContextFilter) -> [String: SQLValue] {
        [
            "platforms": filter.platforms.map { .text(jsonArray($0)) } ?? .null,
            "app_versions": filter.appVersions.map { .text(jsonArray($0)) } ?? .null,
        ]
    }

    static let dropShadowSQL = "DROP TABLE IF EXISTS temp.report_presentations"

    /// Throws ``ReportError/notAStore(path:missing:)`` unless the store and report tables exist.
    func checkStore() throws {
        let required = Schema.tables + ReportSchema.tables
        let present = Set(
            try ReportError.wrap {
                try connection.all("SELECT name FROM sqlite_schema WHERE type = 'table'") { $0.string(at: 0) ?? "" }
            })
        if let missing = required.first(where: { !present.contains($0) }) {
            throw ReportError.notAStore(path: connection.path, missing: missing)
        }
    }

    /// A JSON array of strings (for binding lists to `json_each`).
    static func jsonArray(_ values: [String]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: values, options: [.withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}

/// What a rollup refresh did.
public struct RollupRefresh: Sendable, Equatable {
    /// Events folded in.
    public var eventsRead: Int64
    /// The last events rowid folded in.
    public var watermark: Int64
    /// 15-minute buckets of the presentations and events that changed.
    public var touchedBuckets: Set<Int64>
    /// The watermark before the refresh.
    var watermarkBefore: Int64 = 0
    /// The presentations new to the rollup, when collected.
    var additions: Rollup.Additions?

    /// What a refresh did (the counts a caller sees).
    public init(eventsRead: Int64, watermark: Int64, touchedBuckets: Set<Int64>) {
        (self.eventsRead, self.watermark, self.touchedBuckets) = (eventsRead, watermark, touchedBuckets)
    }
}

/// The transaction's connection lent to the one report task that reads with it
/// (``FunnelReport/nativeRows(_:days:placements:cohortWindow:fromPartials:scan:alongside:)``): the
/// thread that holds the transaction waits for the tasks, and no other task touches the connection,
/// so no two threads ever use it at once.
struct LentDatabase: @unchecked Sendable {
    let db: Database
}
