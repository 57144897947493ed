import PaywallSQLite
import PaywallStore

/// The columns ``PresentationBatch/eventsSQL`` reads, in its order: a case's `rawValue` is its
/// index in the row, and its ``column`` the events column it reads (named by ``EventColumn``).
enum FoldColumns: Int, CaseIterable {
    case occurredAt, name, id, pwID, source, user, product, result, via, openS, rowid, offering, recordedAt
    case platform, appVersion

    /// The events column read (``EventColumn``); `nil` for the rowid.
    var column: EventColumn? {
        switch self {
        case .occurredAt: .occurredAt
        case .name: .name
        case .id: .id
        case .pwID: .pwID
        case .source: .source
        case .user: .userID
        case .product: .product
        case .result: .result
        case .via: .via
        case .openS: .openS
        case .rowid: nil
        case .offering: .offeringID
        case .recordedAt: .recordedAt
        case .platform: .platform
        case .appVersion: .appVersion
        }
    }
}

/// The events of one rollup chunk folded in memory: one ``PresentationFold`` per `pw_id` and event
/// counts per 15-minute bucket. Ids are parsed from the row's bytes and names looked up as bytes
/// (``ReportKeys``), so a chunk allocates per presentation, not per event.
struct PresentationBatch {
    /// Columns read by ``add(_:keys:texts:)``, in ``FoldColumns`` order.
    static let eventsSQL = """
        SELECT \(FoldColumns.allCases.map { $0.column?.columnName ?? "rowid" }.joined(separator: ", "))
        FROM events WHERE rowid > ? AND rowid <= ?
        """

    /// The rowid range folded: `(after, through]`.
    let after: Int64, through: Int64
    /// One fold per presentation; in `pw_id` order once ``read(_:after:through:keys:texts:)`` returns.
    private(set) var folds: [PresentationFold] = []
    private var slots: UUIDSlots
    private(set) var buckets: [Int64: (events: Int64, impressions: Int64)] = [:]
    /// The newest event time, each event's `occurred_at` capped at its `recorded_at`.
    private(set) var newest: Int64 = .min
    private(set) var count: Int64 = 0
    /// Customer and placement names that got their key in this batch (inserted with it).
    var newNames = ReportKeys.NewNames()
    /// The close texts, by the indexes the folds hold.
    var texts = TextTable()

    /// Reads and folds the events with rowid in `(after, through]`. With ``ReportKeys/deferred()``
    /// keys, the folds get provisional keys while reading, then `loadedKeys` (called once, after
    /// the rows are read) gives the loaded tables, which resolve them and replace `keys`.
    static func read(
        _ db: Database, after: Int64, through: Int64, keys: inout ReportKeys,
        texts: inout TextTable, loadedKeys: () throws -> ReportKeys = { ReportKeys() }
    ) throws -> PresentationBatch {
        var batch = PresentationBatch(after: after, through: through, capacity: Int(min(through - after, 1_000_000)))
        try db.forEachRow(eventsSQL, [.integer(after), .integer(through)]) { row in
            try batch.add(row, keys: &keys, texts: &texts)
            return true
        }
        // Customers got provisional keys (looked up now, many at a time); placements too while the
        // key tables were not loaded yet.
        if keys.isDeferred {
            var loaded = try loadedKeys()
            loaded.resolveCustomers(of: &batch.folds, names: keys.takePendingCustomers())
            for index in batch.folds.indices {
                batch.folds[index].placementKey = loaded.resolve(placement: batch.folds[index].placementKey, from: keys)
            }
            keys = loaded
        } else {
            keys.resolveCustomers(of: &batch.folds, names: keys.takePendingCustomers())
        }
        batch.slots = UUIDSlots(capacity: 0)  // not needed any more
        batch.folds.sort { $0.pwID < $1.pwID }  // merged in pw_id order: with time-ordered ids the B-tree appends
        batch.newNames = keys.takeNew()
        batch.texts = texts
        return batch
    }

    init(after: Int64, through: Int64, capacity: Int) {
        self.after = after
        self.through = through
        folds.reserveCapacity(capacity)
        slots = UUIDSlots(capacity: capacity)
    }

    /// Folds the current events row.
    mutating func add(_ row: Row, keys: inout ReportKeys, texts: inout TextTable) throws {
        let at = row.int64(at: FoldColumns.occurredAt.rawValue)
        let kind = row.withUnsafeText(at: FoldColumns.name.rawValue) { EventKind($0) }
        let pwID = try Self.uuid(row, FoldColumns.pwID.rawValue)
        count += 1
        // A device clock set ahead cannot move "the newest event" past the time the event reached
        // the store: cohorts' window_complete reads it, and one event from 2099 would complete them all.
        let arrived = min(at, row.int64(at: FoldColumns.recordedAt.rawValue))
        newest = max(newest, arrived)
        buckets[at / 900_000, default: (0, 0)].events += 1
        if kind == .shown { buckets[at / 900_000, default: (0, 0)].impressions += 1 }
        var eventID: UUIDKey?
        func id() throws -> UUIDKey {
            if let eventID { return eventID }
            let parsed = try Self.uuid(row, FoldColumns.id.rawValue)
            eventID = parsed
            return parsed
        }
        if let slot = slots.position(of: pwID, orInsert: folds.count) {
            if at <= folds[slot].firstAt {
                let first = try id()
                if at < folds[slot].firstAt || first < folds[slot].firstID {
                    folds[slot].firstAt = at
                    folds[slot].firstID = first
                    folds[slot].placementKey = keys.placement(row, FoldColumns.source.rawValue)
                    folds[slot].customerKey = keys.customer(row, FoldColumns.user.rawValue)
                    folds[slot].takeContext(row, texts: &texts)
                }
            }
            try folds[slot].apply(row, kind: kind, at: at, id: id, texts: &texts)
            folds[slot].lastAt = max(folds[slot].lastAt, arrived)
        } else {
            var fold = PresentationFold(
                pwID: pwID, firstAt: at, firstID: try id(),
                placementKey: keys.placement(row, FoldColumns.source.rawValue),
                customerKey: keys.customer(row, FoldColumns.user.rawValue))
            fold.takeContext(row, texts: &texts)
            fold.lastAt = arrived
            try fold.apply(row, kind: kind, at: at, id: id, texts: &texts)
            folds.append(fold)
        }
    }

    /// Column `column` as a ``UUIDKey``; an id that is not canonical uppercase UUID text breaks the store's contract.
    static func uuid(_ row: Row, _ column: Int) throws -> UUIDKey {
        if let key = row.withUnsafeText(at: column, { UUIDKey(text: $0) }) { return key }
        let rowid = row.int64(at: FoldColumns.rowid.rawValue)
        throw StorageError(
            code: 0,
            message: """
                the events row with rowid \(rowid) has an id or pw_id that is not an uppercase canonical UUID, which \
                the store never writes, so the reports cannot group it; that row must be fixed or deleted first
                """, kind: .constraint)
    }
}
