import PaywallCore
import PaywallSQLite

/// One presentation folded from a batch of events, exactly as `reports/rollup_presentations.sql`
/// defines it: first event by (occurred_at, id), earliest impression, plan/purchase flags, earliest
/// close by (occurred_at, id), the first impression's id and offering. Plain values only (ids as ``UUIDKey``, names as integer keys, close
/// texts as ``TextTable`` indexes), so folding allocates nothing per event.
struct PresentationFold: Equatable {
    var pwID: UUIDKey
    var firstAt: Int64
    var firstID: UUIDKey
    var placementKey: Int64
    var customerKey: Int64
    var impressionAt: Int64?
    /// The first impression's id (by `occurred_at`, then id); meaningful when ``impressionAt`` is set.
    var impressionID = UUIDKey.zero
    /// The first impression's `offering_id` as a ``TextTable`` index (``TextTable/null`` when it has none).
    var offering = TextTable.null
    var planSelected = false
    var purchaseStarted = false
    var closeAt: Int64?
    var closeID = UUIDKey.zero
    var closeResult = TextTable.null
    var closeVia = TextTable.null
    var closeProduct = TextTable.null
    var closeOpenS: Double?
    /// The first event's `platform` as a ``TextTable`` index (``TextTable/null`` when it has none).
    var platform = TextTable.null
    /// The first event's `app_version` as a ``TextTable`` index (``TextTable/null`` when it has none).
    var appVersion = TextTable.null
    /// Its newest event's time (each `occurred_at` capped at its `recorded_at`).
    var lastAt = Int64.min

    /// Merges `other`, a fold of more events of the same presentation, as
    /// `reports/rollup_merge_presentation.sql` merges a fold into a stored row: the first event (and
    /// its placement, customer and context) by (time, id), the earliest impression (and its offering)
    /// and close (and its texts) by (time, id), the flags, the newest event's time.
    mutating func merge(_ other: PresentationFold) {
        if (other.firstAt, other.firstID) < (firstAt, firstID) {
            firstAt = other.firstAt
            firstID = other.firstID
            placementKey = other.placementKey
            customerKey = other.customerKey
            platform = other.platform
            appVersion = other.appVersion
        }
        if let at = other.impressionAt, impressionAt.map({ (at, other.impressionID) < ($0, impressionID) }) ?? true {
            impressionAt = at
            impressionID = other.impressionID
            offering = other.offering
        }
        lastAt = max(lastAt, other.lastAt)
        planSelected = planSelected || other.planSelected
        purchaseStarted = purchaseStarted || other.purchaseStarted
        if let at = other.closeAt, closeAt.map({ (at, other.closeID) < ($0, closeID) }) ?? true {
            closeAt = at
            closeID = other.closeID
            closeResult = other.closeResult
            closeVia = other.closeVia
            closeProduct = other.closeProduct
            closeOpenS = other.closeOpenS
        }
    }

    /// Takes the context (`platform`, `app_version`) of `row`, the presentation's new first event.
    mutating func takeContext(_ row: Row, texts: inout TextTable) {
        platform = texts.index(row, FoldColumns.platform.rawValue)
        appVersion = texts.index(row, FoldColumns.appVersion.rawValue)
    }

    /// Applies one event (its first-event fields are handled by the caller).
    mutating func apply(_ row: Row, kind: EventKind, at: Int64, id: () throws -> UUIDKey, texts: inout TextTable)
        rethrows
    {
        switch kind {
        case .shown:
            if let impressionAt, at > impressionAt { return }
            let eventID = try id()
            if let impressionAt, at == impressionAt, !(eventID < impressionID) { return }
            impressionAt = at
            impressionID = eventID
            offering = texts.index(row, FoldColumns.offering.rawValue)
        case .planSelected:
            planSelected = true
        case .purchaseStarted:
            purchaseStarted = true
        case .closed:
            if let closeAt, at > closeAt { return }
            let eventID = try id()
            if let closeAt, at == closeAt, !(eventID < closeID) { return }
            closeAt = at
            closeID = eventID
            closeProduct = texts.index(row, FoldColumns.product.rawValue)
            closeResult = texts.index(row, FoldColumns.result.rawValue)
            closeVia = texts.index(row, FoldColumns.via.rawValue)
            closeOpenS = row.double(at: FoldColumns.openS.rawValue)
        case .other:
            break
        }
    }

    /// Bytes of scratch one fold's ``bind(_:texts:ids:offset:)`` writes its four ids to.
    static let boundIDBytes = 64

    /// Binds this fold to the parameters `offset + 1 … offset + 19` of `rollup_merge_presentation.sql`
    /// (in order of first appearance) or of one row of ``Rollup/mergeRows``, without copying a text
    /// or an id: the texts are bound where `texts` keeps them, the ids written to `ids`
    /// (``boundIDBytes`` bytes), and both must stay unchanged until the statement has run.
    ///
    /// Speed (design note): SQLite copies a text or blob bound with `SQLITE_TRANSIENT` into memory
    /// it allocates, and frees it when the parameter is bound again, so each fold cost ten
    /// `malloc`/`free` pairs (four ids, six texts, the context's two among them): about 0.1 s of
    /// CPU of a full recompute at 1M events (440k presentations). Bound in place, nothing is copied.
    func bind(_ statement: Statement, texts: TextTable.UTF8Texts, ids: UnsafeMutableRawPointer, offset: Int = 0) {
        func bindText(_ index: Int32, at position: Int) {
            if let bytes = texts[index] {
                statement.bindTextNoCopy(bytes, at: position)
            } else {
                statement.bindNull(at: position)
            }
        }
        /// Binds `id` at `position` when the presentation has it (`present`), else `NULL`.
        func bindID(_ id: UUIDKey, if present: Bool, at position: Int, keptAt place: UnsafeMutableRawPointer) {
            if present {
                id.bind(statement, at: position, keptAt: place)
            } else {
                statement.bindNull(at: position)
            }
        }
        pwID.bind(statement, at: offset + 1, keptAt: ids)
        statement.bind(firstAt, at: offset + 2)
        firstID.bind(statement, at: offset + 3, keptAt: ids + 16)
        statement.bind(placementKey, at: offset + 4)
        statement.bind(customerKey, at: offset + 5)
        statement.bind(impressionAt, at: offset + 6)
        statement.bind(Int64(planSelected ? 1 : 0), at: offset + 7)
        statement.bind(Int64(purchaseStarted ? 1 : 0), at: offset + 8)
        statement.bind(closeAt, at: offset + 9)
        bindID(closeID, if: closeAt != nil, at: offset + 10, keptAt: ids + 32)
        bindText(closeResult, at: offset + 11)
        bindText(closeVia, at: offset + 12)
        statement.bind(closeOpenS, at: offset + 13)
        bindText(closeProduct, at: offset + 14)
        bindID(impressionID, if: impressionAt != nil, at: offset + 15, keptAt: ids + 48)
        bindText(offering, at: offset + 16)
        bindText(platform, at: offset + 17)
        bindText(appVersion, at: offset + 18)
        statement.bind(lastAt, at: offset + 19)
    }
}

/// What an event does to a fold, recognised from the name's bytes (the generated `EventName`s).
enum EventKind {
    case shown, planSelected, purchaseStarted, closed, other

    /// The kind of each catalog event: exhaustive, so an event the catalog adds fails to compile
    /// here until it says what it does to a presentation.
    init(_ name: EventName) {
        switch name {
        case .paywallShown: self = .shown
        case .paywallPlanSelected: self = .planSelected
        case .paywallPurchaseStarted: self = .purchaseStarted
        case .paywallClosed: self = .closed
        }
    }

    /// Every catalog event's kind with its name's bytes, from the generated `EventName`.
    private static let names: [(EventKind, [UInt8])] = EventName.allCases.map {
        (EventKind($0), Array($0.rawValue.utf8))
    }

    init(_ bytes: UnsafeRawBufferPointer) {
        for (kind, name) in Self.names where name.count == bytes.count && bytes.elementsEqual(name) {
            self = kind
            return
        }
        self = .other
    }
}
