import Foundation
import PaywallCore
import PaywallSQLite

/// The nightly job's subscription side, kept between runs so that a run folds only what changed
/// since the last one instead of rereading every subscription (NIGHTLY.md, "Subscription revenue
/// in the nightly job"). It holds, as of the subscription events up to a watermark
/// (`reports.subscription_watermark_rowid`):
/// - every subscription with a start (`report_subscriptions`): the start, whether a trial converted,
///   and the presentation it is attributed to;
/// - each start's customer names by purchase time (`report_subscription_buyers`);
/// - the subscription events per 15-minute bucket of their stamp (`report_subscription_buckets`);
/// - the money of the attributed subscriptions per day of their presentation (`report_money_days`,
///   one ``DayMoney`` each, in the time zone `reports.subscription_timezone`).
///
/// ``update(_:additions:rebuild:)`` brings it up to date in the caller's write transaction. A
/// subscription is attributed again (its old money taken out of its day, its new money put in)
/// when its start changes (a new start, or a late one with an earlier purchase) or when a
/// presentation that could take it changed: a new or changed presentation of one of its customers
/// with an impression inside its purchase's window, or the presentation it is attributed to. Any
/// other new event only adds its amounts to its subscription's cell. An erasure (``ReportErasure``)
/// empties the state, as does a run in another time zone or a rebuilt rollup: the next run builds
/// it again from every subscription event.
///
/// ``money(_:days:nowMs:)`` reads it for a report's days: the same ``MoneyByDay`` a full
/// ``SubscriptionAttribution`` gives.
struct SubscriptionState {
    /// The days' zone.
    let calendar: DayCalendar

    /// The state's inconsistency with itself (a cell without the subscription it should hold, a
    /// day's money this program cannot read): the caller empties the state and builds it again.
    struct Inconsistent: Error {}

    // MARK: - Reading a subscription's events

    /// The columns every read of `subscription_events` takes, in ``Event``'s order.
    static let eventColumns = """
        rowid, original_transaction_id, (environment IS 'SANDBOX' OR type IS 'TEST'),
        CASE type WHEN 'INITIAL_PURCHASE' THEN 1 WHEN 'NON_RENEWING_PURCHASE' THEN 1
          WHEN 'RENEWAL' THEN 2 WHEN 'CANCELLATION' THEN 3 ELSE 0 END,
        period_type IS 'TRIAL', purchased_at_ms, expiration_at_ms, is_trial_conversion,
        price_micros, proceeds_micros, event_timestamp_ms, id
        """

    /// A subscription's start: its purchase with the smallest `purchased_at_ms` (a time before
    /// none), ties by the smallest `id` in code-point order.
    struct Start: Equatable {
        var rowid: Int64
        var id: [UInt8]
        var purchasedAt: Int64?
        var trial: Bool
        var expirationAt: Int64?

        /// Whether `self` comes before `other` as a start.
        func precedes(_ other: Start) -> Bool {
            switch (purchasedAt, other.purchasedAt) {
            case (let x?, let y?) where x != y: x < y
            case (nil, _?): false
            case (_?, nil): true
            default: id.lexicographicallyPrecedes(other.id)
            }
        }
    }

    /// What a set of one subscription's production events adds up to.
    struct Fold {
        var start: Start?
        var refunds: Int64 = 0, revenue: Int64 = 0, proceeds: Int64 = 0
        /// A `RENEWAL` with `is_trial_conversion = 1` among them.
        var conversion = false
        /// Their stamps (`NULL` stamps left out).
        var stamps: [Int64] = []

        /// Folds one event row (``eventColumns``) of the subscription, not sandbox.
        mutating func add(_ row: Row) {
            if let stamp = row.optionalInt64(at: 10) { stamps.append(stamp) }
            let kind = row.int64(at: 3)
            let price = row.optionalInt64(at: 8)
            if kind == 1 {
                let candidate = Start(
                    rowid: row.int64(at: 0), id: row.withUnsafeText(at: 11) { Array($0) },
                    purchasedAt: row.optionalInt64(at: 5), trial: row.int64(at: 4) != 0,
                    expirationAt: row.optionalInt64(at: 6))
                if start.map({ candidate.precedes($0) }) ?? true { start = candidate }
            }
            if kind == 2, row.optionalInt64(at: 7) == 1 { conversion = true }
            let refund = kind == 3 && (price ?? 0) < 0
            if refund || kind == 1 || kind == 2 {
                if refund { refunds += 1 }
                revenue += price ?? 0
                proceeds += row.optionalInt64(at: 9) ?? 0
            }
        }
    }

    /// The 15-minute bucket of an instant (floor division).
    static func bucket(_ ms: Int64) -> Int64 { ms >= 0 ? ms / 900_000 : (ms - 899_999) / 900_000 }

    // MARK: - The stored rows

    /// Where a subscription's start is attributed.
    struct Attribution: Equatable {
        var pwID: UUIDKey
        var firstAt: Int64
        var placementKey: Int64
        var offering: String
        var customer: Int64
    }

    /// A `report_subscriptions` row.
    struct Stored {
        var start: Start
        /// A trial conversion was seen among the subscription's events (as of the watermark).
        var conversion: Bool
        var attribution: Attribution?
        var buyers: [Buyer]
    }

    /// One of a start's customer names and its customer key (`-1`: no customer has that name yet).
    struct Buyer: Equatable {
        var name: [UInt8]
        var key: Int64
    }

    /// Changes to one bucket's counts.
    struct BucketChange {
        var production: Int64 = 0, unattributed: Int64 = 0, sandbox: Int64 = 0
        var firstProduction: Int64?, lastProduction: Int64?
    }

    /// One change to a day's money.
    enum MoneyChange {
        case add(DayMoney.Key, MoneyCell.Contribution)
        case remove(DayMoney.Key, MoneyCell.Contribution)
        /// New events of a subscription whose start and attribution stand: their sums, and whether
        /// they convert its trial (then its open trial's expiration, if any, goes).
        case adjust(
            DayMoney.Key, customer: Int64, refunds: Int64, revenue: Int64, proceeds: Int64, converts: Bool,
            expirationAt: Int64?)
    }

    /// A presentation a rollup refresh stored or changed since the state was last brought up to date.
    struct TouchedPresentation {
        var pwID: UUIDKey
        var customer: Int64
        var impressionAt: Int64?
        /// Whether it may have been stored before (then a subscription may be attributed to it).
        var mayBeAttributed: Bool
    }

    // MARK: - Update

    /// Empties the state (an erasure, a rebuild): the next ``update(_:additions:rebuild:)`` builds it
    /// from every subscription event.
    static func clear(_ db: Database) throws {
        for table in ReportSchema.subscriptionStateTables {
            _ = try db.run("DELETE FROM \(table)")
        }
        try ReportSchema.forget(
            [
                ReportSchema.subscriptionWatermarkKey, ReportSchema.subscriptionTimezoneKey,
                ReportSchema.subscriptionCustomerMarkKey,
            ], in: db)
    }

    /// New subscription events above which an update takes the build's larger page cache.
    static let largeUpdate: Int64 = 100_000

    /// Brings the state up to date with every stored subscription event and the rollups, inside the
    /// caller's write transaction, after the rollup refresh and before the day partials clear the
    /// dirty buckets. `additions` are the nightly's own refresh's new presentations (as for the day
    /// partials); `rebuild` starts over (a first build of the rollups). Returns whether it was rebuilt.
    ///
    /// - Throws: ``Inconsistent`` (the caller clears the state and calls again); `StorageError`.
    @discardableResult
    func update(
        _ db: Database, additions: NightlyPartials.Additions?, rebuild: Bool, stages: StageClock? = nil
    ) throws -> Bool {
        let zone = try ReportSchema.metaValue(ReportSchema.subscriptionTimezoneKey, in: db)
        let stored = try ReportSchema.metaValue(ReportSchema.subscriptionWatermarkKey, in: db).flatMap { Int64($0) }
        let rebuild = rebuild || stored == nil || zone != calendar.timeZone.identifier
        if rebuild { try Self.clear(db) }
        let watermark = rebuild ? 0 : stored ?? 0
        try ReportSchema.setMeta(ReportSchema.subscriptionTimezoneKey, to: calendar.timeZone.identifier, in: db)
        guard try SubscriptionAttribution.tablesExist(db) else {
            try ReportSchema.setMeta(ReportSchema.subscriptionWatermarkKey, to: "0", in: db)
            return rebuild
        }
        let top = try db.int64("SELECT coalesce(max(rowid), 0) FROM subscription_events") ?? 0
        // A build writes every subscription's rows: 32 MB of cache holds the pages it goes back to
        // (as the rollup refresh does; SQLite's default is 2 MB). A night's update reads each page it
        // needs about once (33k late renewals at 10M events: 5,800 pages of `report_subscriptions`),
        // and the default cache recycles their memory: peak 224 -> 211 MB, 3,300 fewer page faults,
        // the fold's time unchanged (four alternated pairs on copies of one store).
        let large = rebuild || top - watermark > Self.largeUpdate
        let cacheSize = try db.int64("PRAGMA cache_size") ?? -2000
        if large { try db.execute("PRAGMA cache_size = -32768") }
        defer { if large { try? db.execute("PRAGMA cache_size = \(cacheSize)") } }
        let mark =
            try ReportSchema.metaValue(ReportSchema.subscriptionCustomerMarkKey, in: db).flatMap { Int64($0) } ?? -1
        var run = Run(calendar: calendar, db: db, watermark: watermark, top: top, customerMark: mark)
        try run.readNewEvents()
        stages?.mark("subscription state: new events")
        if watermark > 0 { try run.touchByPresentations(try touchedPresentations(db, additions: additions)) }
        stages?.mark("subscription state: changed presentations")
        try run.foldNewEvents()
        stages?.mark("subscription state: fold")
        try run.attributeAgain()
        stages?.mark("subscription state: attribution")
        try run.write()
        stages?.mark("subscription state: write")
        try ReportSchema.setMeta(ReportSchema.subscriptionWatermarkKey, to: String(max(top, watermark)), in: db)
        try ReportSchema.setMeta(
            ReportSchema.subscriptionCustomerMarkKey,
            to: String(try db.int64("SELECT coalesce(max(key), -1) FROM report_customers") ?? -1), in: db)
        return rebuild
    }

    /// The presentations changed since the last update: the nightly's own new presentations when
    /// they are the whole change of their buckets (``NightlyPartials/plan(_:rebuild:additions:)``'s
    /// test), and every presentation with an impression whose first event is in another dirty bucket.
    /// Read as they are visited (``Touched/forEach(_:_:)``), never held: after a large import the
    /// dirty buckets can hold most of the store.
    struct Touched {
        /// The run's own new presentations (empty when they are not the whole change).
        var folds = FoldRuns()
        /// Ranges of `first_at` (contiguous dirty buckets) read from `report_presentations`.
        var ranges: [(from: Int64, to: Int64)] = []

        /// Calls `body` with every changed presentation that has an impression.
        func forEach(_ db: Database, _ body: (TouchedPresentation) throws -> Void) throws {
            for fold in folds where fold.impressionAt != nil {
                try body(
                    TouchedPresentation(
                        pwID: fold.pwID, customer: fold.customerKey, impressionAt: fold.impressionAt,
                        mayBeAttributed: false))
            }
            let read = try db.cachedStatement(
                """
                SELECT pw_id, customer_key, impression_at FROM report_presentations
                WHERE first_at >= ?1 AND first_at < ?2 AND impression_at IS NOT NULL
                """)
            defer { read.reset() }
            for range in ranges {
                read.reset()
                read.bind(range.from, at: 1)
                read.bind(range.to, at: 2)
                while try read.step() {
                    let row = read.row
                    guard let pwID = UUIDKey(blob: row, 0) else { continue }  // (the rollup stores 16-byte ids only)
                    try body(
                        TouchedPresentation(
                            pwID: pwID, customer: row.int64(at: 1), impressionAt: row.optionalInt64(at: 2),
                            mayBeAttributed: true))
                }
            }
        }
    }

    /// What changed since the last update (``Touched``).
    func touchedPresentations(_ db: Database, additions: NightlyPartials.Additions?) throws -> Touched {
        var touched = Touched()
        var buckets = Set(try db.all("SELECT bucket FROM report_dirty_buckets") { $0.int64(at: 0) })
        let rollupWatermark = try ReportSchema.metaValue(ReportSchema.watermarkKey, in: db)
        if let additions, rollupWatermark == String(additions.watermarkAfter) {
            buckets = additions.markedBefore.union(additions.collected.changedBuckets)
            touched.folds = additions.collected.folds
        }
        // Contiguous buckets read as one range of `first_at`.
        let sorted = buckets.sorted()
        var index = 0
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count, sorted[end + 1] == sorted[end] + 1 { end += 1 }
            touched.ranges.append((sorted[index] * 900_000, (sorted[end] + 1) * 900_000))
            index = end + 1
        }
        return touched
    }

    /// One update's work, step by step.
    struct Run {
        let calendar: DayCalendar
        let db: Database
        /// The events folded before (`0`: none, the state is being built) and the newest one now.
        let watermark: Int64
        let top: Int64
        /// The largest customer key when the state was last brought up to date.
        let customerMark: Int64
        /// The new events of each subscription, by transaction.
        var groups: [ExactText: Fold] = [:]
        /// Subscriptions to attribute again.
        var again: Set<ExactText> = []
        var buckets: [Int64: BucketChange] = [:]
        var money: [Int64: [MoneyChange]] = [:]  // by day start
        var dayOf: [Int64: ReportDay] = [:]  // by 15-minute bucket
        /// Rows to write (`nil`: delete), in transaction order, and converted flags to set.
        var rows: [(transaction: ExactText, row: Stored?)] = []
        var conversions: [ExactText] = []

        init(calendar: DayCalendar, db: Database, watermark: Int64, top: Int64, customerMark: Int64) {
            self.calendar = calendar
            self.db = db
            self.watermark = watermark
            self.top = top
            self.customerMark = customerMark
        }

        /// Reads the events above the watermark: counts their stamps, groups the subscriptions' ones.
        mutating func readNewEvents() throws {
            guard top > watermark else { return }
            // Room for a subscription per event up front (growing the table moved every fold 17 times
            // in a nightly run with 33k late renewals); the limit bounds what a build reserves (1M
            // events reserved buckets for 1M folds where 333k subscriptions came: about 200 MB).
            groups.reserveCapacity(Int(min(top - watermark, 65_536)))
            try db.forEachRow(
                "SELECT \(SubscriptionState.eventColumns) FROM subscription_events WHERE rowid > ?1 AND rowid <= ?2",
                [.integer(watermark), .integer(top)]
            ) { row in
                let stamp = row.optionalInt64(at: 10)
                if row.int64(at: 2) != 0 {
                    if let stamp { buckets[SubscriptionState.bucket(stamp), default: BucketChange()].sandbox += 1 }
                    return true
                }
                if let stamp {
                    let bucket = SubscriptionState.bucket(stamp)
                    var change = buckets[bucket, default: BucketChange()]
                    change.production += 1
                    change.firstProduction = min(change.firstProduction ?? stamp, stamp)
                    change.lastProduction = max(change.lastProduction ?? stamp, stamp)
                    if row.isNull(at: 1) { change.unattributed += 1 }
                    buckets[bucket] = change
                }
                guard !row.isNull(at: 1) else { return true }
                groups[ExactText(row.string(at: 1) ?? ""), default: Fold()].add(row)
                return true
            }
        }

        /// Marks the subscriptions a changed presentation could take or leave: those with a customer of
        /// the presentation and an impression of it inside their purchase's window, and those
        /// attributed to it. A buyer's name that had no customer can only have one among the customers
        /// added since (keys above ``customerMark``).
        mutating func touchByPresentations(_ touched: Touched) throws {
            // Two passes over the changed presentations (none of them held): their impressions' span, then the match.
            var span: (first: Int64, last: Int64)?
            try touched.forEach(db) { presentation in
                guard let at = presentation.impressionAt else { return }
                span = (min(span?.first ?? at, at), max(span?.last ?? at, at))
            }
            var byCustomer: [Int64: [(purchasedAt: Int64, transaction: ExactText)]] = [:]
            if let span {
                let (first, last) = span
                var unresolved = ByteKeyTable()
                var unresolvedPurchases: [[(purchasedAt: Int64, transaction: ExactText)]] = []
                try db.forEachRow(
                    """
                    SELECT purchased_at, name, original_transaction_id, customer_key FROM report_subscription_buyers
                    WHERE purchased_at >= ?1 AND purchased_at <= ?2
                    """,
                    [
                        .integer(first - SubscriptionAttribution.skewMs),
                        .integer(last + SubscriptionAttribution.lookbackMs),
                    ]
                ) { row in
                    let purchase = (row.int64(at: 0), ExactText(row.string(at: 2) ?? ""))
                    let key = row.int64(at: 3)
                    if key >= 0 {
                        byCustomer[key, default: []].append(purchase)
                    } else {
                        row.withUnsafeText(at: 1) { name in
                            if let index = unresolved.key(name) {
                                unresolvedPurchases[Int(index)].append(purchase)
                            } else {
                                unresolved.insert(name, key: Int64(unresolvedPurchases.count))
                                unresolvedPurchases.append([purchase])
                            }
                        }
                    }
                    return true
                }
                if unresolved.count > 0 {
                    try db.forEachRow(
                        "SELECT key, user_id FROM report_customers WHERE key > ?1", [.integer(customerMark)]
                    ) { row in
                        if let index = row.withUnsafeText(at: 1, { unresolved.key($0) }) {
                            byCustomer[row.int64(at: 0), default: []] += unresolvedPurchases[Int(index)]
                        }
                        return true
                    }
                }
            }
            // Each changed presentation against those purchases, and the subscriptions attributed to it.
            let attributed = try db.cachedStatement(
                "SELECT original_transaction_id FROM report_subscriptions WHERE pw_id = ?1")
            defer { attributed.reset() }
            var again = self.again
            try touched.forEach(db) { presentation in
                if let at = presentation.impressionAt, let purchases = byCustomer[presentation.customer] {
                    for purchase in purchases
                    where at >= purchase.purchasedAt - SubscriptionAttribution.lookbackMs
                        && at <= purchase.purchasedAt + SubscriptionAttribution.skewMs
                    {
                        again.insert(purchase.transaction)
                    }
                }
                guard presentation.mayBeAttributed else { return }
                attributed.reset()
                presentation.pwID.bind(attributed, at: 1)
                while try attributed.step() { again.insert(ExactText(attributed.row.string(at: 0) ?? "")) }
            }
            self.again = again
        }

        /// Folds each subscription's new events into its stored state, or marks it to be attributed again.
        mutating func foldNewEvents() throws {
            // In the order of `report_subscriptions`' key (bytes, as SQLite's BINARY collation and
            // `ExactText`'s `<` compare): with the update's default page cache (2 MB), lookups in hash
            // order read a leaf page for nearly every one of them (39k reads for 33k late renewals at
            // 10M events); in key order each page is read once while its lookups follow each other.
            // (A build looks nothing up: no sort.)
            let read = try db.cachedStatement(SubscriptionState.storedSQL)
            let order = watermark > 0 ? groups.keys.sorted() : Array(groups.keys)
            for transaction in order where !again.contains(transaction) {
                guard let fold = groups[transaction] else { continue }
                guard watermark > 0,
                    let stored = try SubscriptionState.stored(read, transaction.text, withBuyers: false)
                else {
                    if fold.start != nil {
                        again.insert(transaction)
                    } else {
                        addUnattributed(fold.stamps, sign: 1)  // no start yet: every event unattributed
                    }
                    continue
                }
                if let start = fold.start, start.precedes(stored.start) {
                    again.insert(transaction)
                    continue
                }
                let converts = !stored.conversion && fold.conversion
                if converts { conversions.append(transaction) }
                guard let attribution = stored.attribution else {
                    addUnattributed(fold.stamps, sign: 1)
                    continue
                }
                try change(
                    at: attribution.firstAt,
                    .adjust(
                        key(attribution), customer: attribution.customer, refunds: fold.refunds, revenue: fold.revenue,
                        proceeds: fold.proceeds, converts: converts && stored.start.trial,
                        expirationAt: stored.start.expirationAt))
            }
        }

        /// Attributes each marked subscription again: its old money out, its new money in.
        mutating func attributeAgain() throws {
            let events = try db.cachedStatement(
                """
                SELECT \(SubscriptionState.eventColumns) FROM subscription_events
                WHERE original_transaction_id = ?1 AND rowid <= ?2
                  AND NOT (environment IS 'SANDBOX' OR type IS 'TEST')
                """)
            // Each subscription's events: all of them, and, after a build, those up to the watermark
            // (its old sums) and its stored row. A build (every subscription at once) keeps only the
            // first, moved out of `groups`, whose table then goes: a build of 1M subscription events
            // held every fold in three places (the table, with room reserved for a fold per event, and
            // two copies here) and peaked at 746 MB.
            let transactions = again.sorted()
            var alls: [Fold] = []
            alls.reserveCapacity(transactions.count)
            var befores: [Fold] = []
            var olds: [Stored?] = []
            for transaction in transactions {
                if watermark == 0 {
                    alls.append(groups.removeValue(forKey: transaction) ?? Fold())
                    continue
                }
                var all = Fold()
                var before = Fold()
                events.reset()
                events.bind(transaction.text, at: 1)
                events.bind(top, at: 2)
                while try events.step() {
                    all.add(events.row)
                    if events.row.int64(at: 0) <= watermark { before.add(events.row) }
                }
                events.reset()
                alls.append(all)
                befores.append(before)
                olds.append(try SubscriptionState.stored(db, transaction.text))
            }
            events.reset()
            if watermark == 0 { groups = [:] }
            // Their starts attributed together: one read of the customers, one of each purchase window.
            let attributed = try SubscriptionState.attribute(db, alls.map(\.start))
            rows.reserveCapacity(rows.count + transactions.count)
            for (index, transaction) in transactions.enumerated() {
                let all = alls[index]
                let before = befores.isEmpty ? Fold() : befores[index]
                let old = olds.isEmpty ? nil : olds[index]
                if let old, let attribution = old.attribution {
                    try change(
                        at: attribution.firstAt,
                        .remove(
                            key(attribution),
                            contribution(
                                old.start, conversion: old.conversion, fold: before, customer: attribution.customer)
                        ))
                } else {
                    addUnattributed(before.stamps, sign: -1)
                }
                if let old { try SubscriptionState.deleteBuyers(db, transaction.text, old) }
                guard let start = all.start else {
                    addUnattributed(all.stamps, sign: 1)
                    rows.append((transaction, nil))
                    continue
                }
                let (buyers, attribution) = attributed[index]
                if let attribution {
                    try change(
                        at: attribution.firstAt,
                        .add(
                            key(attribution),
                            contribution(start, conversion: all.conversion, fold: all, customer: attribution.customer)))
                } else {
                    addUnattributed(all.stamps, sign: 1)
                }
                rows.append(
                    (
                        transaction,
                        Stored(start: start, conversion: all.conversion, attribution: attribution, buyers: buyers)
                    ))
            }
        }

        func key(_ attribution: Attribution) -> DayMoney.Key {
            DayMoney.Key(placementKey: attribution.placementKey, offering: ExactText(attribution.offering))
        }

        func contribution(_ start: Start, conversion: Bool, fold: Fold, customer: Int64) -> MoneyCell.Contribution {
            MoneyCell.Contribution(
                customer: customer, trial: start.trial, converted: start.trial && conversion,
                expirationAt: start.expirationAt, refunds: fold.refunds, revenue: fold.revenue, proceeds: fold.proceeds)
        }

        mutating func addUnattributed(_ stamps: [Int64], sign: Int64) {
            for stamp in stamps {
                buckets[SubscriptionState.bucket(stamp), default: BucketChange()].unattributed += sign
            }
        }

        /// Queues a money change on the day of `firstAt`.
        mutating func change(at firstAt: Int64, _ change: MoneyChange) throws {
            // Days start on a quarter hour in every zone: one calendar lookup per 15-minute bucket.
            let bucket = SubscriptionState.bucket(firstAt)
            let day: ReportDay
            if let known = dayOf[bucket] {
                day = known
            } else {
                let date = calendar.date(containing: firstAt)
                day = try calendar.days(from: date, through: date)[0]
                dayOf[bucket] = day
            }
            money[day.startMs, default: []].append(change)
            dayEnds[day.startMs] = day.endMs
        }
        var dayEnds: [Int64: Int64] = [:]

        /// Writes the rows, the buyers, the buckets and the days' money.
        mutating func write() throws {
            let upsert = try db.cachedStatement(
                """
                INSERT OR REPLACE INTO report_subscriptions (original_transaction_id, start_rowid, start_id,
                  purchased_at, trial, expiration_at, converted, pw_id, first_at, placement_key, offering,
                  customer_key, buyer_names)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """)
            let buyer = try db.cachedStatement(
                "INSERT OR IGNORE INTO report_subscription_buyers (purchased_at, name, original_transaction_id, customer_key) VALUES (?1, ?2, ?3, ?4)"
            )
            // Rows in key order, the buyers' rows in theirs (below): a build writes a few hundred
            // thousand, and in hash order each insert landed on a random page of a table larger than
            // the cache.
            var buyerRows: [(purchasedAt: Int64, name: [UInt8], transaction: ExactText, key: Int64)] = []
            for (transaction, row) in rows {
                guard let row else {
                    _ = try db.run(
                        "DELETE FROM report_subscriptions WHERE original_transaction_id = ?1", [.text(transaction.text)]
                    )
                    continue
                }
                upsert.reset()
                upsert.bind(transaction.text, at: 1)
                upsert.bind(row.start.rowid, at: 2)
                row.start.id.withUnsafeBytes { upsert.bindText($0, at: 3) }
                upsert.bind(row.start.purchasedAt, at: 4)
                upsert.bind(Int64(row.start.trial ? 1 : 0), at: 5)
                upsert.bind(row.start.expirationAt, at: 6)
                upsert.bind(Int64(row.conversion ? 1 : 0), at: 7)
                if let a = row.attribution {
                    a.pwID.bind(upsert, at: 8)
                    upsert.bind(a.firstAt, at: 9)
                    upsert.bind(a.placementKey, at: 10)
                    upsert.bind(a.offering, at: 11)
                    upsert.bind(a.customer, at: 12)
                } else {
                    for index in 8...12 { upsert.bind(Int64?.none, at: index) }
                }
                upsert.bind(Data(SubscriptionState.encodeBuyers(row.buyers)), at: 13)
                try upsert.run()
                if let purchasedAt = row.start.purchasedAt {
                    for entry in row.buyers { buyerRows.append((purchasedAt, entry.name, transaction, entry.key)) }
                }
            }
            buyerRows.sort {
                if $0.purchasedAt != $1.purchasedAt { return $0.purchasedAt < $1.purchasedAt }
                if $0.name != $1.name { return $0.name.lexicographicallyPrecedes($1.name) }
                if $0.transaction != $1.transaction { return $0.transaction < $1.transaction }
                return $0.key < $1.key
            }
            for entry in buyerRows {
                buyer.reset()
                buyer.bind(entry.purchasedAt, at: 1)
                entry.name.withUnsafeBytes { buyer.bindText($0, at: 2) }
                buyer.bind(entry.transaction.text, at: 3)
                buyer.bind(entry.key, at: 4)
                try buyer.run()
            }
            upsert.clearBindings()
            buyer.clearBindings()
            // (Never a subscription attributed again: the fold skips those, and its rows say converted.)
            for transaction in conversions {
                _ = try db.run(
                    "UPDATE report_subscriptions SET converted = 1 WHERE original_transaction_id = ?1",
                    [.text(transaction.text)])
            }
            let bucket = try db.cachedStatement(
                """
                INSERT INTO report_subscription_buckets (bucket, production, unattributed, sandbox, first_production,
                  last_production)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (bucket) DO UPDATE SET production = production + excluded.production,
                  unattributed = unattributed + excluded.unattributed, sandbox = sandbox + excluded.sandbox,
                  first_production = coalesce(min(first_production, excluded.first_production), first_production,
                    excluded.first_production),
                  last_production = coalesce(max(last_production, excluded.last_production), last_production,
                    excluded.last_production)
                """)
            for (key, change) in buckets {
                bucket.reset()
                bucket.bind(key, at: 1)
                bucket.bind(change.production, at: 2)
                bucket.bind(change.unattributed, at: 3)
                bucket.bind(change.sandbox, at: 4)
                bucket.bind(change.firstProduction, at: 5)
                bucket.bind(change.lastProduction, at: 6)
                try bucket.run()
            }
            for (start, changes) in money {
                var day = DayMoney()
                var readable = true
                try db.forEachRow("SELECT money FROM report_money_days WHERE day_start = ?1", [.integer(start)]) {
                    row in
                    if let decoded = row.withUnsafeBlob(at: 0, { DayMoney(decoding: $0) }) {
                        day = decoded
                    } else {
                        readable = false
                    }
                    return false
                }
                guard readable else { throw Inconsistent() }
                for change in changes {
                    switch change {
                    case .add(let key, let contribution):
                        day.cells[key, default: MoneyCell()].add(contribution)
                    case .remove(let key, let contribution):
                        guard day.cells[key]?.remove(contribution) == true else { throw Inconsistent() }
                        if day.cells[key]!.isEmpty { day.cells[key] = nil }
                    case .adjust(
                        let key, let customer, let refunds, let revenue, let proceeds, let converts, let expiration):
                        guard
                            day.cells[key]?.adjust(
                                customer: customer, refunds: refunds, revenue: revenue, proceeds: proceeds,
                                converts: converts, expirationAt: expiration) == true
                        else { throw Inconsistent() }
                    }
                }
                if day.cells.isEmpty {
                    _ = try db.run("DELETE FROM report_money_days WHERE day_start = ?1", [.integer(start)])
                } else {
                    _ = try db.run(
                        """
                        INSERT INTO report_money_days (day_start, day_end, money) VALUES (?1, ?2, ?3)
                        ON CONFLICT (day_start) DO UPDATE SET day_end = excluded.day_end, money = excluded.money
                        """, [.integer(start), .integer(dayEnds[start] ?? start), .blob(Data(day.encoded()))])
                }
            }
        }
    }

    // MARK: - Rows and attribution

    /// The stored row of `transaction`, if any; its buyers only `withBuyers` (folding new events
    /// into a row needs none of them).
    static func stored(_ db: Database, _ transaction: String, withBuyers: Bool = true) throws -> Stored? {
        try stored(try db.cachedStatement(storedSQL), transaction, withBuyers: withBuyers)
    }

    /// The read of one `report_subscriptions` row by transaction (``stored(_:_:withBuyers:)``).
    static let storedSQL = """
        SELECT start_rowid, start_id, purchased_at, trial, expiration_at, converted, pw_id, first_at,
               placement_key, coalesce(offering, ''), customer_key, buyer_names
        FROM report_subscriptions WHERE original_transaction_id = ?1
        """

    /// The stored row of `transaction` read with `read`, a statement of ``storedSQL`` that a loop of
    /// lookups prepares once.
    static func stored(_ read: Statement, _ transaction: String, withBuyers: Bool) throws -> Stored? {
        read.reset()
        defer { read.reset() }
        read.bind(transaction, at: 1)
        guard try read.step() else { return nil }
        let row = read.row
        let start = Start(
            rowid: row.int64(at: 0), id: row.withUnsafeText(at: 1) { Array($0) }, purchasedAt: row.optionalInt64(at: 2),
            trial: row.int64(at: 3) != 0, expirationAt: row.optionalInt64(at: 4))
        var attribution: Attribution?
        if !row.isNull(at: 6) {
            attribution = Attribution(
                pwID: UUIDKey(blob: row, 6) ?? .zero, firstAt: row.int64(at: 7),
                placementKey: row.int64(at: 8), offering: row.string(at: 9) ?? "", customer: row.int64(at: 10))
        }
        let buyers = withBuyers ? row.withUnsafeBlob(at: 11) { decodeBuyers($0) } : []
        return Stored(start: start, conversion: row.int64(at: 5) != 0, attribution: attribution, buyers: buyers)
    }

    /// Removes the buyers' rows of `old`.
    static func deleteBuyers(_ db: Database, _ transaction: String, _ old: Stored) throws {
        guard let purchasedAt = old.start.purchasedAt else { return }
        let delete = try db.cachedStatement(
            """
            DELETE FROM report_subscription_buyers
            WHERE purchased_at = ?1 AND name = ?2 AND original_transaction_id = ?3 AND customer_key = ?4
            """)
        for entry in old.buyers {
            delete.reset()
            delete.bind(purchasedAt, at: 1)
            entry.name.withUnsafeBytes { delete.bindText($0, at: 2) }
            delete.bind(transaction, at: 3)
            delete.bind(entry.key, at: 4)
            try delete.run()
        }
        delete.clearBindings()
    }

    /// Each start's customer names (with their customer keys) and the presentation it is attributed
    /// to (funnels.md "Revenue"): the latest impression, by (`impression_at`, `pw_id`), of any of its
    /// customers' presentations from ``SubscriptionAttribution/lookbackMs`` before the purchase to
    /// ``SubscriptionAttribution/skewMs`` after it. A start without a purchase time has no names and
    /// no attribution; a `nil` start neither.
    ///
    /// Design note (speed): the starts are attributed together. Their names are looked up in one pass
    /// over `report_customers` (its `user_id` has no index: one would take every new customer's insert
    /// to a random place in a large index), and the candidates come from one range read of
    /// `report_presentations_by_impression` per stretch of overlapping purchase windows, keeping only
    /// the buyers' rows.
    static func attribute(_ db: Database, _ starts: [Start?]) throws -> [(buyers: [Buyer], Attribution?)] {
        var result = [(buyers: [Buyer], Attribution?)](repeating: ([], nil), count: starts.count)
        // The names of each start with a purchase time, each name once in `names`.
        let namesOf = try db.cachedStatement(
            "SELECT customer_key FROM subscription_customer_keys WHERE event_rowid = ?1")
        var names = ByteKeyTable()
        var nameBytes: [[UInt8]] = []
        var namesOfStart = [[Int]](repeating: [], count: starts.count)
        for (index, start) in starts.enumerated() {
            guard let start, start.purchasedAt != nil else { continue }
            namesOf.reset()
            namesOf.bind(start.rowid, at: 1)
            while try namesOf.step() {
                let name = namesOf.row.withUnsafeText(at: 0) { bytes -> Int in
                    if let known = names.key(bytes) { return Int(known) }
                    names.insert(bytes, key: Int64(nameBytes.count))
                    nameBytes.append(Array(bytes))
                    return nameBytes.count - 1
                }
                if !namesOfStart[index].contains(name) { namesOfStart[index].append(name) }
            }
        }
        namesOf.reset()
        guard !nameBytes.isEmpty else { return result }
        var keysOfName = [[Int64]](repeating: [], count: nameBytes.count)
        try db.forEachRow("SELECT key, user_id FROM report_customers") { row in
            if let index = row.withUnsafeText(at: 1, { names.key($0) }) {
                keysOfName[Int(index)].append(row.int64(at: 0))
            }
            return true
        }
        // Each start's customers, and the stretches of overlapping purchase windows of starts that have some.
        var wanted = Set<Int64>()
        var windows: [(from: Int64, to: Int64)] = []
        var keysOfStart = [[Int64]](repeating: [], count: starts.count)
        for (index, start) in starts.enumerated() {
            guard let purchasedAt = start?.purchasedAt else { continue }
            var buyers: [Buyer] = []
            for name in namesOfStart[index] {
                let keys = keysOfName[name]
                if keys.isEmpty { buyers.append(Buyer(name: nameBytes[name], key: -1)) }
                for key in keys {
                    buyers.append(Buyer(name: nameBytes[name], key: key))
                    if !keysOfStart[index].contains(key) { keysOfStart[index].append(key) }
                }
            }
            result[index].buyers = buyers
            guard !keysOfStart[index].isEmpty else { continue }
            wanted.formUnion(keysOfStart[index])
            windows.append(
                (purchasedAt - SubscriptionAttribution.lookbackMs, purchasedAt + SubscriptionAttribution.skewMs))
        }
        // The buyers' presentations with an impression in some window.
        var candidates: [Int64: [(at: Int64, pwID: UUIDKey)]] = [:]
        let isWanted = { (customer: Int64) in wanted.contains(customer) }
        try SubscriptionReads.forEachImpression(db, in: windows, of: isWanted) { customer, at, row in
            guard let pwID = UUIDKey(blob: row, 2) else { return }
            candidates[customer, default: []].append((at, pwID))
        }
        // Each start's latest candidate in its window, and that presentation's day, placement and offering.
        let presentation = try db.cachedStatement(
            "SELECT first_at, placement_key, coalesce(offering, '') FROM report_presentations WHERE pw_id = ?1")
        for (index, start) in starts.enumerated() {
            guard let purchasedAt = start?.purchasedAt else { continue }
            let earliest = purchasedAt - SubscriptionAttribution.lookbackMs
            let latest = purchasedAt + SubscriptionAttribution.skewMs
            var best: (at: Int64, pwID: UUIDKey, customer: Int64)?
            for key in keysOfStart[index] {
                for candidate in candidates[key] ?? [] where candidate.at >= earliest && candidate.at <= latest {
                    if let current = best,
                        candidate.at < current.at || (candidate.at == current.at && !(current.pwID < candidate.pwID))
                    {
                        continue
                    }
                    best = (candidate.at, candidate.pwID, key)
                }
            }
            guard let best else { continue }
            presentation.reset()
            best.pwID.bind(presentation, at: 1)
            guard try presentation.step() else { continue }
            let row = presentation.row
            result[index].1 = Attribution(
                pwID: best.pwID, firstAt: row.int64(at: 0), placementKey: row.int64(at: 1),
                offering: row.string(at: 2) ?? "", customer: best.customer)
        }
        presentation.reset()
        return result
    }

    /// The stored form of a start's buyers (`report_subscriptions.buyer_names`).
    static func encodeBuyers(_ buyers: [Buyer]) -> [UInt8] {
        var writer = ByteWriter()
        writer.count(buyers.count)
        for buyer in buyers {
            writer.count(buyer.name.count)
            writer.bytes.append(contentsOf: buyer.name)
            writer.int(buyer.key)
        }
        return writer.bytes
    }

    /// Reads what ``encodeBuyers(_:)`` wrote.
    static func decodeBuyers(_ bytes: UnsafeRawBufferPointer) -> [Buyer] {
        var reader = ByteReader(bytes: bytes)
        guard let count = reader.count() else { return [] }
        var buyers: [Buyer] = []
        for _ in 0..<count {
            guard let length = reader.count(), let name = reader.raw(length, of: UInt8.self), let key = reader.int()
            else { break }
            buyers.append(Buyer(name: name, key: key))
        }
        return buyers
    }

    // MARK: - Reading for a report

    /// The report's ``MoneyByDay`` from the state (brought up to date by ``update(_:additions:rebuild:)``
    /// in this run): the days' money, their subscription counts and the as-of time at `nowMs`.
    ///
    /// - Throws: ``Inconsistent`` for a day's money this program cannot read (the nightly job builds
    ///   the state again and reads once more); `StorageError`.
    static func money(_ db: Database, days: [ReportDay], nowMs: Int64) throws -> MoneyByDay {
        var asOf = try db.int64(
            "SELECT max(last_production) FROM report_subscription_buckets WHERE last_production <= ?1",
            [.integer(nowMs)])
        // A bucket with production stamps on both sides of the run's time: its exact greatest one not after it.
        if let straddling = try db.int64(
            """
            SELECT min(bucket) FROM report_subscription_buckets WHERE first_production <= ?1 AND last_production > ?1
            """, [.integer(nowMs)]), try SubscriptionAttribution.tablesExist(db)
        {
            let watermark = Int64(try ReportSchema.metaValue(ReportSchema.subscriptionWatermarkKey, in: db) ?? "0") ?? 0
            if let exact = try db.int64(
                """
                SELECT max(event_timestamp_ms) FROM subscription_events
                WHERE rowid <= ?1 AND event_timestamp_ms >= ?2 AND event_timestamp_ms <= ?3
                  AND NOT (environment IS 'SANDBOX' OR type IS 'TEST')
                """, [.integer(watermark), .integer(straddling * 900_000), .integer(nowMs)])
            {
                asOf = max(asOf ?? exact, exact)
            }
        }
        var result = MoneyByDay(days: days, asOf: asOf ?? nowMs)
        guard let first = days.first, let last = days.last else { return result }
        try db.forEachRow(
            """
            SELECT bucket, production, unattributed, sandbox FROM report_subscription_buckets
            WHERE bucket >= ?1 AND bucket < ?2
            """, [.integer(bucket(first.startMs)), .integer(bucket(last.endMs - 1) + 1)]
        ) { row in
            if let day = result.dayIndex(row.int64(at: 0) * 900_000) {
                for kind in 0..<3 { result.stampCounts[day][kind] += row.int64(at: 1 + kind) }
            }
            return true
        }
        var dayOfStart: [Int64: Int] = [:]
        for (index, day) in days.enumerated() { dayOfStart[day.startMs] = index }
        var placements: [Int64: String]?
        try db.forEachRow(
            "SELECT day_start, money FROM report_money_days WHERE day_start >= ?1 AND day_start < ?2",
            [.integer(first.startMs), .integer(last.endMs)]
        ) { row in
            guard let index = dayOfStart[row.int64(at: 0)] else { return true }
            guard let day = row.withUnsafeBlob(at: 1, { DayMoney(decoding: $0) }) else { throw Inconsistent() }
            if placements == nil {
                var names: [Int64: String] = [:]
                try db.forEachRow("SELECT key, placement FROM report_placements") { row in
                    names[row.int64(at: 0)] = row.string(at: 1) ?? ""
                    return true
                }
                placements = names
            }
            result.cells[index] = day.cells.map { key, cell in
                MoneyByDay.Entry(
                    placement: placements?[key.placementKey] ?? "", offering: key.offering.text, cell: cell)
            }
            return true
        }
        return result
    }
}

extension MoneyCell {
    /// Adds new events' sums to one subscription already in the cell; with `converts`, its trial
    /// converts (one more conversion, its open trial's expiration gone). `false` when the customer has none here.
    mutating func adjust(
        customer: Int64, refunds: Int64, revenue: Int64, proceeds: Int64, converts: Bool, expirationAt: Int64?
    ) -> Bool {
        guard customers[customer] != nil else { return false }
        self.refunds += refunds
        self.revenue += revenue
        self.proceeds += proceeds
        customers[customer]!.revenue += revenue
        if converts {
            conversions += 1
            if let expirationAt {
                guard let index = openTrials.firstIndex(of: expirationAt) else { return false }
                openTrials.swapAt(index, openTrials.count - 1)
                openTrials.removeLast()
            }
        }
        return true
    }
}
