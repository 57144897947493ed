import Foundation
import PaywallSQLite

/// The reads behind ``SubscriptionAttribution``, shaped so that Swift allocates nothing per stored
/// row: only a start's customer names and the buyers' presentations are kept.
///
/// Design note (speed). Measured in one process on one snapshot (the store of
/// `paywall-bench report subscriptions --events 1000000`: 1M paywall events, 100k subscription
/// events, 33k starts, 440k presentations), the former full read against each step, three
/// alternating rounds each, on the shared machine:
/// - the former read took 0.56-0.73 s: three scans of `subscription_events` (as-of, sandbox stamps,
///   production events) with a `String` per column and a dictionary of events by transaction,
///   then `report_customers` and `report_presentations` returned whole to Swift.
/// - `subscription_events` read once in `original_transaction_id` order through its index, each
///   subscription folded as its rows go by (``EventFold``: the transaction compared as bytes, the
///   type as an integer SQLite computes): 0.08 s for this pass. Kept.
/// - The starts' names: `subscription_customer_keys` in `event_rowid` order (its index) merged with
///   the starts sorted by rowid, names kept as bytes in a ``ByteKeyTable``; then every
///   `report_customers` row's bytes looked up in it (`user_id` has no index): 0.07 s. Filtering
///   `report_customers` in SQLite instead (`user_id IN json_each(?)`) took 0.24 s (0.05 s to
///   build the JSON, 0.15 s for the probes). Dropped.
/// - The buyers' presentations: one scan with a flag per customer key, ids and offerings in one
///   byte arena: 0.15 s, as fast as filtering in SQLite (`customer_key IN json_each(?)`, 0.16 s),
///   and it needs no JSON text. A partial index on `report_presentations (customer_key,
///   impression_at)` took longer than the scan (0.15 s against 0.11 s in the sqlite3 shell, with
///   14 % of the customers buying) and every rollup write would pay for it. Dropped.
/// - All together 0.32-0.34 s against 0.56-0.73 s (a quieter moment: 0.21-0.26 s against
///   0.41-0.45 s), the same subscriptions, stamps and as-of. The scan of
///   `report_presentations` is now the largest part. The nightly job reads none of this: it keeps
///   its subscription side between runs (``SubscriptionState``).
enum SubscriptionReads {
    /// A subscription's start (its purchase with the smallest `purchased_at_ms`, ties by the
    /// smallest `id`) and the sums of its production events.
    struct Start {
        var rowid: Int64
        var purchasedAt: Int64?
        var trial: Bool
        var expirationAt: Int64?
        /// A `RENEWAL` with `is_trial_conversion = 1` among the subscription's events.
        var renewedAsConversion = false
        var refunds: Int64 = 0
        var revenueMicros: Int64 = 0
        var proceedsMicros: Int64 = 0
        /// The subscription's stamps in ``EventFold/groupStamps``.
        var stamps: Range<Int> = 0..<0
    }

    /// What one pass over `subscription_events` gives.
    struct EventFold {
        var starts: [Start] = []
        /// Stamps of the subscriptions with a start, each subscription's together (``Start/stamps``).
        var groupStamps: [Int64] = []
        var productionStamps: [Int64] = []
        var sandboxStamps: [Int64] = []
        /// Production events without a transaction, and every event of a subscription without a start.
        var unattributedStamps: [Int64] = []
        /// The greatest production stamp not after the run's time.
        var asOf: Int64?

        /// The current subscription: its transaction's bytes, start, sums and first stamp.
        fileprivate var transaction: [UInt8] = []
        fileprivate var inGroup = false
        fileprivate var current = Start(rowid: 0, trial: false)
        fileprivate var hasStart = false
        fileprivate var startID: [UInt8] = []
        fileprivate var groupBegin = 0

        /// Ends the current subscription: kept with its start, or all its stamps unattributed.
        fileprivate mutating func close() {
            guard inGroup else { return }
            inGroup = false
            if hasStart {
                current.stamps = groupBegin..<groupStamps.count
                starts.append(current)
            } else {
                unattributedStamps += groupStamps[groupBegin...]
                groupStamps.removeSubrange(groupBegin...)
            }
        }
    }

    /// Event kinds as the pass's SQL numbers them.
    private enum Kind {
        static let purchase: Int64 = 1, renewal: Int64 = 2, cancellation: Int64 = 3
    }

    /// Every stored subscription event, once, in transaction order (see the design note).
    static func events(_ db: Database, nowMs: Int64) throws -> EventFold {
        var fold = EventFold()
        // Room for as many starts and stamps as there are events (the largest rowid bounds them),
        // reserved once: grown by doubling, the starts and stamps of 1M events were copied into
        // fresh memory again and again (page faults for 2x their size, a third of the report's).
        // Room never written is never given memory.
        let bound = Int(try db.int64("SELECT coalesce(max(rowid), 0) FROM subscription_events") ?? 0)
        fold.starts.reserveCapacity(bound)
        fold.groupStamps.reserveCapacity(bound)
        fold.productionStamps.reserveCapacity(bound)
        try db.forEachRow(
            """
            SELECT original_transaction_id, rowid, (environment IS 'SANDBOX' OR type IS 'TEST'),
                   CASE type WHEN 'INITIAL_PURCHASE' THEN 1 WHEN 'NON_RENEWING_PURCHASE' THEN 1
                     WHEN 'RENEWAL' THEN 2 WHEN 'CANCELLATION' THEN 3 ELSE 0 END,
                   period_type IS 'TRIAL', purchased_at_ms, expiration_at_ms, is_trial_conversion,
                   price_micros, proceeds_micros, event_timestamp_ms, id
            FROM subscription_events ORDER BY original_transaction_id
            """
        ) { row in
            let stamp = row.optionalInt64(at: 10)
            if row.int64(at: 2) != 0 {
                if let stamp { fold.sandboxStamps.append(stamp) }
                return true
            }
            if let stamp {
                fold.productionStamps.append(stamp)
                if stamp <= nowMs, stamp > fold.asOf ?? .min { fold.asOf = stamp }
            }
            if row.isNull(at: 0) {
                if let stamp { fold.unattributedStamps.append(stamp) }
                return true
            }
            let same = row.withUnsafeText(at: 0) { bytes in
                fold.inGroup && bytes.elementsEqual(fold.transaction)
            }
            if !same {
                fold.close()
                row.withUnsafeText(at: 0) { bytes in
                    fold.transaction.removeAll(keepingCapacity: true)
                    fold.transaction.append(contentsOf: bytes)
                }
                fold.inGroup = true
                fold.hasStart = false
                fold.current = Start(rowid: 0, trial: false)
                fold.groupBegin = fold.groupStamps.count
            }
            if let stamp { fold.groupStamps.append(stamp) }
            let kind = row.int64(at: 3)
            let price = row.optionalInt64(at: 8)
            if kind == Kind.purchase {
                let purchasedAt = row.optionalInt64(at: 5)
                let earlier: Bool
                if !fold.hasStart {
                    earlier = true
                } else {
                    switch (purchasedAt, fold.current.purchasedAt) {
                    case (let x?, let y?) where x != y: earlier = x < y
                    case (nil, _?): earlier = false
                    case (_?, nil): earlier = true
                    default:  // same purchase time: the smaller id (code point order = UTF-8 byte order)
                        earlier = row.withUnsafeText(at: 11) { bytes in
                            bytes.lexicographicallyPrecedes(fold.startID)
                        }
                    }
                }
                if earlier {
                    fold.hasStart = true
                    fold.current.rowid = row.int64(at: 1)
                    fold.current.purchasedAt = purchasedAt
                    fold.current.trial = row.int64(at: 4) != 0
                    fold.current.expirationAt = row.optionalInt64(at: 6)
                    row.withUnsafeText(at: 11) { bytes in
                        fold.startID.removeAll(keepingCapacity: true)
                        fold.startID.append(contentsOf: bytes)
                    }
                }
            }
            if kind == Kind.renewal, row.optionalInt64(at: 7) == 1 { fold.current.renewedAsConversion = true }
            let refund = kind == Kind.cancellation && (price ?? 0) < 0
            if refund || kind == Kind.purchase || kind == Kind.renewal {
                if refund { fold.current.refunds += 1 }
                fold.current.revenueMicros += price ?? 0
                fold.current.proceedsMicros += row.optionalInt64(at: 9) ?? 0
            }
            return true
        }
        fold.close()
        return fold
    }

    /// The starts' customers: for each start (by index), the distinct `report_customers` keys of
    /// its customer keys; and all of them.
    ///
    /// Design note: the keys are one flat array cut by offsets (most starts have one customer), not
    /// an array per start: 333k small arrays, and the name lists they came from, took 37 MB of a
    /// report's page faults at 1M subscription events.
    struct Buyers {
        /// Start `i`'s keys are `keys[offsets[i]..<offsets[i + 1]]`.
        var keys: [Int64]
        var offsets: [Int]
        /// Every start's keys, sorted, once each.
        var customers: [Int64]

        /// The distinct customer keys of start `index`.
        func customers(ofStart index: Int) -> ArraySlice<Int64> { keys[offsets[index]..<offsets[index + 1]] }
    }

    /// The customers of `starts` (sorted by rowid) that have a purchase time.
    static func buyers(_ db: Database, starts: [Start]) throws -> Buyers {
        // The starts' names, each given a dense index (its key in `names`), found by their bytes;
        // `pairs` holds (start, name) in start order (the rows come in `event_rowid` order).
        var names = ByteKeyTable()
        var pairs: [(start: Int32, name: Int32)] = []
        var next = 0
        try db.forEachRow("SELECT event_rowid, customer_key FROM subscription_customer_keys ORDER BY event_rowid") {
            row in
            let rowid = row.int64(at: 0)
            while next < starts.count, starts[next].rowid < rowid { next += 1 }
            guard next < starts.count else { return false }
            guard starts[next].rowid == rowid, starts[next].purchasedAt != nil else { return true }
            let index = row.withUnsafeText(at: 1) { bytes in
                if let known = names.key(bytes) { return Int32(known) }
                names.insert(bytes, key: Int64(names.count))
                return Int32(names.count - 1)
            }
            let start = Int32(next)
            if !pairs.reversed().prefix(while: { $0.start == start }).contains(where: { $0.name == index }) {
                pairs.append((start, index))
            }
            return true
        }
        // Their report keys: every customer's bytes looked up in `names` (the column has no index).
        var keyOfName = [Int64?](repeating: nil, count: names.count)
        if names.count > 0 {
            try db.forEachRow("SELECT key, user_id FROM report_customers ORDER BY key") { row in
                if let index = row.withUnsafeText(at: 1, { names.key($0) }) { keyOfName[Int(index)] = row.int64(at: 0) }
                return true
            }
        }
        var buyers = Buyers(keys: [], offsets: [], customers: [])
        buyers.keys.reserveCapacity(pairs.count)
        buyers.offsets.reserveCapacity(starts.count + 1)
        var pair = 0
        for start in 0..<starts.count {
            buyers.offsets.append(buyers.keys.count)
            let first = buyers.keys.count
            while pair < pairs.count, pairs[pair].start == Int32(start) {
                if let key = keyOfName[Int(pairs[pair].name)], !buyers.keys[first...].contains(key) {
                    buyers.keys.append(key)
                }
                pair += 1
            }
        }
        buyers.offsets.append(buyers.keys.count)
        buyers.customers = Set(keyOfName.compactMap { $0 }).sorted()
        return buyers
    }

    /// The buyers' presentations with an impression, column by column; ids and offerings in one arena.
    struct Presentations {
        /// With a context filter, whether each presentation's first event matches it (by index);
        /// empty without one (every presentation is kept).
        var kept: [Bool] = []
        var impressionAt: [Int64] = []
        var firstAt: [Int64] = []
        var placementKey: [Int64] = []
        /// Each presentation's `pw_id` then offering bytes in ``arena``: presentation `i`'s id at
        /// `idStart[i]..<idEnd[i]`, its offering at `idEnd[i]..<offeringEnd[i]`.
        var arena: [UInt8] = []
        var idStart: [Int] = []
        var idEnd: [Int] = []
        var offeringEnd: [Int] = []
        /// Each presentation's customer key (by index), as read; ``indexByCustomer()`` then files
        /// the indexes by customer.
        var customerOfIndex: [Int64] = []
        /// Customer `c`'s presentation indexes are `indexesByCustomer[customerStart[c]..<customerStart[c + 1]]`
        /// (a counting sort of ``customerOfIndex``: two flat arrays instead of an array per customer,
        /// which held 300k small arrays for a report with 1M subscription events).
        private var indexesByCustomer: [Int32] = []
        private var customerStart: [Int32] = []
        /// Placement names by key (only read when some presentation was found).
        var placements: [Int64: String] = [:]

        /// Whether presentation `a` comes after `b`: a later impression, or the same one and a larger `pw_id`.
        func isLater(_ a: Int, than b: Int) -> Bool {
            if impressionAt[a] != impressionAt[b] { return impressionAt[a] > impressionAt[b] }
            return arena.withUnsafeBufferPointer { bytes in
                bytes[idStart[b]..<idEnd[b]].lexicographicallyPrecedes(bytes[idStart[a]..<idEnd[a]])
            }
        }

        /// The indexes of `customer`'s presentations (after ``indexByCustomer()``).
        func presentations(of customer: Int64) -> ArraySlice<Int32> {
            guard customer >= 0, Int(customer) + 1 < customerStart.count else { return [] }
            return indexesByCustomer[Int(customerStart[Int(customer)])..<Int(customerStart[Int(customer) + 1])]
        }

        /// Files the presentations read by their customer (``presentations(of:)``).
        mutating func indexByCustomer() {
            let customers = Int(customerOfIndex.max() ?? -1) + 1
            var start = [Int32](repeating: 0, count: customers + 1)
            for customer in customerOfIndex { start[Int(customer) + 1] += 1 }
            for customer in 0..<customers { start[customer + 1] += start[customer] }
            var next = start
            indexesByCustomer = [Int32](repeating: 0, count: customerOfIndex.count)
            for (index, customer) in customerOfIndex.enumerated() {
                indexesByCustomer[Int(next[Int(customer)])] = Int32(index)
                next[Int(customer)] += 1
            }
            customerStart = start
            customerOfIndex = []
        }

        /// Whether presentation `index` is in the filtered store (always, without a filter).
        func isKept(_ index: Int) -> Bool { kept.isEmpty || kept[index] }

        /// Presentation `index`'s offering (empty when it has none).
        func offering(_ index: Int) -> String {
            offerings[index] ?? String(decoding: arena[idEnd[index]..<offeringEnd[index]], as: UTF8.self)
        }

        /// Offerings read by ``readDetails(_:of:)`` (the index read has none).
        var offerings: [Int: String] = [:]
        /// Whether the day, placement and offering are still to be read (``readImpressions(_:wanted:windows:)``).
        var detailsPending = false

        /// The impressions of the `wanted` customers inside `windows`, from the index by impression
        /// time (overlapping windows read once); day, placement and offering left to ``readDetails(_:of:)``.
        mutating func readImpressions(_ db: Database, wanted: [Bool], windows: [(from: Int64, to: Int64)]) throws {
            detailsPending = true
            let isWanted = { (customer: Int64) in customer >= 0 && customer < wanted.count && wanted[Int(customer)] }
            try SubscriptionReads.forEachImpression(db, in: windows, of: isWanted) { customer, at, row in
                customerOfIndex.append(customer)
                impressionAt.append(at)
                firstAt.append(0)
                placementKey.append(-1)
                idStart.append(arena.count)
                row.withUnsafeBlob(at: 2) { arena.append(contentsOf: $0) }
                idEnd.append(arena.count)
                offeringEnd.append(arena.count)
            }
            if !impressionAt.isEmpty {
                try db.forEachRow("SELECT key, placement FROM report_placements") { row in
                    placements[row.int64(at: 0)] = row.string(at: 1) ?? ""
                    return true
                }
            }
        }

        /// Reads the first event time, placement and offering of the presentations at `indexes`
        /// (after ``readImpressions(_:wanted:windows:)``; a whole read has them already).
        mutating func readDetails(_ db: Database, of indexes: [Int]) throws {
            guard detailsPending else { return }
            let read = try db.cachedStatement(
                "SELECT first_at, placement_key, coalesce(offering, '') FROM main.report_presentations WHERE pw_id = ?1"
            )
            defer { read.reset() }
            // In id order: the rows are read in their table's order.
            let sorted = Set(indexes).sorted { a, b in
                arena.withUnsafeBufferPointer {
                    $0[idStart[a]..<idEnd[a]].lexicographicallyPrecedes($0[idStart[b]..<idEnd[b]])
                }
            }
            for index in sorted {
                read.reset()
                arena.withUnsafeBytes {
                    read.bindBlob(UnsafeRawBufferPointer(rebasing: $0[idStart[index]..<idEnd[index]]), at: 1)
                }
                guard try read.step() else { continue }
                firstAt[index] = read.row.int64(at: 0)
                placementKey[index] = read.row.int64(at: 1)
                offerings[index] = read.row.string(at: 2) ?? ""
            }
        }
    }

    /// Calls `body` with the customer, the impression time and the row (`customer_key`, `impression_at`,
    /// `pw_id`) of every presentation of a customer `wanted` whose first impression is inside one of
    /// `windows`, read from `report_presentations_by_impression`, overlapping windows once.
    static func forEachImpression(
        _ db: Database, in windows: [(from: Int64, to: Int64)], of wanted: (Int64) -> Bool,
        each body: (Int64, Int64, Row) throws -> Void
    ) throws {
        var stretches: [(from: Int64, to: Int64)] = []
        for window in windows.sorted(by: { $0.from < $1.from }) {
            if let last = stretches.last, window.from <= last.to {
                stretches[stretches.count - 1].to = max(last.to, window.to)
            } else {
                stretches.append(window)
            }
        }
        let read = try db.cachedStatement(
            """
            SELECT customer_key, impression_at, pw_id FROM main.report_presentations
            WHERE impression_at IS NOT NULL AND impression_at >= ?1 AND impression_at <= ?2
            """)
        defer { read.reset() }
        for stretch in stretches {
            read.reset()
            read.bind(stretch.from, at: 1)
            read.bind(stretch.to, at: 2)
            while try read.step() {
                let customer = read.row.int64(at: 0)
                if wanted(customer) { try body(customer, read.row.int64(at: 1), read.row) }
            }
        }
    }

    /// Every presentation with an impression: the columns ``presentations(_:customers:contextFilter:)`` reads.
    static let buyersPresentations = """
        SELECT customer_key, impression_at, pw_id, first_at, placement_key, coalesce(offering, '')
        FROM main.report_presentations WHERE impression_at IS NOT NULL
        """
    /// ``buyersPresentations`` with the first event's platform and app version, for a context filter.
    static let buyersPresentationsWithContext = """
        SELECT customer_key, impression_at, pw_id, first_at, placement_key, coalesce(offering, ''), platform, app_version
        FROM main.report_presentations WHERE impression_at IS NOT NULL
        """

    /// The presentations with an impression of `customers` (sorted keys), in the whole store: the
    /// stored `report_presentations` (`main.`, not the SQL engine's filtered shadow of it). With a
    /// `contextFilter`, ``Presentations/kept`` says which ones match it, by
    /// ``ContextFilter/matches(platform:appVersion:)`` on the first event's platform and app version
    /// (`NULL` as `""`), the test the presentation scan applies, and every presentation is read whole.
    /// Without one, only the impressions inside `windows` (the starts' purchase windows) are read,
    /// from the index by impression time; a chosen presentation's day, placement and offering come
    /// from ``Presentations/readDetails(_:of:)``.
    ///
    /// Design note (speed): with 1M subscription events beside 10M paywall events, reading every
    /// presentation was 1.4 s of the report's 1.9 s of subscription work (`perf`, a range report over
    /// the month); the index holds three narrow columns and the windows cover the purchases' days.
    static func presentations(
        _ db: Database, customers: [Int64], windows: [(from: Int64, to: Int64)] = [],
        contextFilter: ContextFilter? = nil
    ) throws -> Presentations {
        var result = Presentations()
        guard !customers.isEmpty else { return result }
        // Keys are dense and not negative (``ReportKeys`` numbers them from 0): one flag per key.
        var wanted = [Bool](repeating: false, count: Int(max(customers[customers.count - 1], -1)) + 1)
        for customer in customers where customer >= 0 { wanted[Int(customer)] = true }
        let filter = contextFilter.flatMap { $0.isEmpty ? nil : $0 }
        if filter == nil {
            try result.readImpressions(db, wanted: wanted, windows: windows)
            result.indexByCustomer()
            return result
        }
        var contexts = TextTable()
        var matching: [Int64: Bool] = [:]  // by (platform, app version) indexes in `contexts`
        try db.forEachRow(filter == nil ? Self.buyersPresentations : Self.buyersPresentationsWithContext) { row in
            let customer = row.int64(at: 0)
            guard customer >= 0, customer < wanted.count, wanted[Int(customer)] else { return true }
            if let filter {
                let platform = contexts.index(orEmpty: row, 6)
                let appVersion = contexts.index(orEmpty: row, 7)
                let key = Int64(platform) << 32 | Int64(appVersion)
                if let known = matching[key] {
                    result.kept.append(known)
                } else {
                    let matches = filter.matches(
                        platform: contexts[platform] ?? "", appVersion: contexts[appVersion] ?? "")
                    matching[key] = matches
                    result.kept.append(matches)
                }
            }
            result.customerOfIndex.append(customer)
            result.impressionAt.append(row.int64(at: 1))
            result.firstAt.append(row.int64(at: 3))
            result.placementKey.append(row.int64(at: 4))
            result.idStart.append(result.arena.count)
            row.withUnsafeBlob(at: 2) { result.arena.append(contentsOf: $0) }
            result.idEnd.append(result.arena.count)
            row.withUnsafeText(at: 5) { result.arena.append(contentsOf: $0) }
            result.offeringEnd.append(result.arena.count)
            return true
        }
        result.indexByCustomer()
        if !result.impressionAt.isEmpty {
            try db.forEachRow("SELECT key, placement FROM report_placements") { row in
                result.placements[row.int64(at: 0)] = row.string(at: 1) ?? ""
                return true
            }
        }
        return result
    }
}
