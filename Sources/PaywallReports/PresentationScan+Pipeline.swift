import Foundation
import PaywallCore
import PaywallSQLite

/// The scan of every presentation on two threads: the calling thread steps SQLite and decodes each
/// row (``PresentationScan/DecodedRow``), a second thread adds the decoded rows to the accumulators.
///
/// Design note: a range report on a store whose rollups were just built (the full report) reads all
/// of `report_presentations` after the refresh, and that scan ran on one core while the other was
/// idle: at 10M events 4.2–4.9 s of CPU and as much wall time (`paywall-bench report child report`,
/// its `funnels` stage), after a refresh that keeps both cores busy. The reading side keeps the
/// texts' tables (contexts, products, offering names) and decides every row's fate (context filter,
/// range, placement filter) exactly as the one-thread scan did, in the same row order, so the tables
/// get the same indexes; the adding side adds the rows in that order, so every list (viewers,
/// `open_s`, purchases, offering days) is the one-thread scan's, element for element. Nothing is
/// merged: the two threads only hand batches over. Memory: at most ``pipelineBatches`` + 2 batches
/// of ``pipelineBatchRows`` rows (about 2 MB; peak 83.2 -> 84.6 MiB at 1M events).
///
/// The split is uneven: stepping SQLite and reading the columns is most of the scan. In a profile
/// of a report with current rollups at 1M events, while the adding thread ran, the reading thread
/// had 0.51 s of samples and the adding thread 0.14 s, so the scan's wall time can fall by about a
/// fifth at most. Measured whole process against the one-thread scan (report with current rollups,
/// 1M events, 20 alternated pairs on the shared machine): wall 0.93× (0.519 vs 0.531 s median;
/// 0.72–2.2 pair by pair, the fastest runs 0.418 vs 0.502 s), CPU 0.98×.
extension PresentationScan {
    /// Rows per batch handed from the reading thread to the adding one (the default of ``batchRows``).
    static let pipelineBatchRows = 4096
    /// Batches queued between the two threads at most.
    static let pipelineBatches = 2

    /// A row of ``scanSQL`` as the accumulators read it (decoded on the reading thread).
    struct DecodedRow {
        var p: ScannedPresentation
        /// The ``contexts`` indexes of the first event's platform and app version.
        var platform: Int32
        var appVersion: Int32
        /// The report day's index; -1 when the presentation is outside the range or the placement
        /// filter (it counts in the cohorts only).
        var day = -1
        var planSelected = false
        var purchaseStarted = false
        var openS = 0.0
        /// The close's `via`, read for a dismissal only (the only close that reads it).
        var via: CloseVia? = nil
        /// The ``products`` index of the close's product, for a purchase after an impression (the
        /// only presentation that counts its product); otherwise ``TextTable/null``.
        var product = TextTable.null
        /// The offering's index in the offering tallies' names, for a presentation with an impression.
        var offering = -1
    }

    /// A decoded row's columns for ``add(_:_:to:purchasedProduct:)`` (its product counts by index instead).
    struct DecodedDetails: PresentationDetails {
        let row: DecodedRow
        var planSelected: Bool { row.planSelected }
        var purchaseStarted: Bool { row.purchaseStarted }
        var openS: Double { row.openS }
        /// Not read: the adding thread counts ``DecodedRow/product`` by index.
        var product: String { "" }
        var via: CloseVia? { row.via }
        /// Not read: the offering arrives as ``DecodedRow/offering``.
        func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
            body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        /// Not read: the context arrives as ``DecodedRow/platform`` and ``DecodedRow/appVersion``.
        var platform: String { "" }
        var appVersion: String { "" }
    }

    /// A batch of decoded rows on its way to the adding thread.
    final class RowBatch: @unchecked Sendable {
        // @unchecked Sendable: filled by the reading thread, then handed over through a channel and
        // read only by the adding thread.
        var rows: [DecodedRow] = []
        init(capacity: Int) { rows.reserveCapacity(capacity) }
    }

    /// The scan the adding thread owns while the rows go by.
    final class Accumulating: @unchecked Sendable {
        // @unchecked Sendable: only the adding thread touches `scan` until the caller has waited for it.
        var scan: PresentationScan
        init(_ scan: PresentationScan) { self.scan = scan }
    }

    /// Scans every presentation (``scanSQL``) with the rows decoded on this thread and added on a
    /// second one; the result is the one-thread scan's. Call it after ``prepare(_:)``.
    mutating func scanOnTwoThreads(_ db: Database) throws {
        let rangeStart = days.first?.startMs ?? 0
        let rangeEnd = days.last?.endMs ?? 0
        let starts = days.map(\.startMs)
        let batchRows = max(1, batchRows)
        // The reading side: this scan's texts, filters and caches; none of its accumulators.
        var reader = self
        reader.firsts = CustomerFirsts()
        // The adding side owns the accumulators; `self` holds an empty scan until it is done, so no
        // array is shared (and copied on its first write) between the two threads.
        let adding = Accumulating(
            PresentationScan(
                days: days, placementFilter: placementFilter, windowMs: windowMs, newestEventAt: newestEventAt))
        swap(&self, &adding.scan)
        let channel = BoundedChannel<RowBatch>(capacity: Self.pipelineBatches)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            while let batch = channel.receive() {
                for row in batch.rows { adding.scan.add(row) }
            }
            finished.signal()
        }
        thread.name = "PaywallReports.scan.add"
        thread.start()
        var failure: (any Error)?
        do {
            var batch = RowBatch(capacity: batchRows)
            try db.forEachRow(Self.scanSQL) { row in
                if let decoded = reader.decode(row, rangeStart: rangeStart, rangeEnd: rangeEnd, starts: starts) {
                    batch.rows.append(decoded)
                    if batch.rows.count == batchRows {
                        _ = channel.send(batch)
                        batch = RowBatch(capacity: batchRows)
                    }
                }
                return true
            }
            if !batch.rows.isEmpty { _ = channel.send(batch) }
        } catch {
            failure = error
        }
        channel.finish()
        finished.wait()
        swap(&self, &adding.scan)
        if let failure { throw failure }
        settleDaySegments()
        contexts = reader.contexts
        products = reader.products
        offerings.names = reader.offerings.names
        filterCache = reader.filterCache
        contextIncluded = reader.contextIncluded
    }

    /// The reading side of a row: its texts' indexes and what it counts in, decided as the one-thread
    /// scan decides (`nil`: left out by the context filter).
    mutating func decode(_ row: Row, rangeStart: Int64, rangeEnd: Int64, starts: [Int64]) -> DecodedRow? {
        let p = ScannedPresentation(row)
        let platform = contextIndex(row, 12)
        let appVersion = contextIndex(row, 13)
        if contextFilter != nil, !isIncluded(platform: platform, appVersion: appVersion) { return nil }
        var decoded = DecodedRow(p: p, platform: platform, appVersion: appVersion)
        guard p.firstAt >= rangeStart, p.firstAt < rangeEnd, isIncluded(p.placement) else { return decoded }
        decoded.day = Self.dayIndex(p.firstAt, starts)
        guard p.impressionAt != nil else { return decoded }
        let details = RowDetails(row: row)
        decoded.planSelected = details.planSelected
        decoded.purchaseStarted = details.purchaseStarted
        if p.closed {
            decoded.openS = details.openS
            if p.result == .dismissed { decoded.via = details.via }
            if p.result == .purchased { decoded.product = products.index(orEmpty: row, 10) }
        }
        decoded.offering = details.withOffering { offerings.names.index(bytes: $0) }
        return decoded
    }

    /// The adding side of a row: its cohort first and purchase, and when it is in the range its
    /// (day, placement) group, product, offering and segment.
    mutating func add(_ row: DecodedRow) {
        let p = row.p
        if let impressionAt = p.impressionAt {
            firsts.record(user: p.user, placement: p.placement, at: impressionAt)
        }
        if let purchaseAt = p.purchaseAt { purchases.append((p.user, purchaseAt)) }
        guard row.day >= 0 else { return }
        let details = DecodedDetails(row: row)
        var purchased = false
        let segment = SegmentKey(placement: p.placement, platform: row.platform, appVersion: row.appVersion)
        Self.add(details, p, to: &daySegments[DaySegmentKey(day: row.day, segment: segment), default: GroupStats()]) {
            _ in purchased = true
        }
        if purchased { productCounts[p.placement << 32 | Int(row.product), default: 0] += 1 }
        if p.impressionAt != nil { offerings.add(p, offering: row.offering, day: row.day) }
    }
}
