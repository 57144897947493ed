import PaywallSQLite

/// One presentation folded from a batch of events, exactly as `reports/rollup_presentations.sql`
/// folds them: first event by (occurred_at, id), earliest impression, plan/purchase flags, earliest
/// close by (occurred_at, id). Ids compare by code points (SQLite's BINARY collation).
struct PresentationFold {
    var firstAt: Int64
    var firstID: String
    var placement: String
    var user: String
    var impressionAt: Int64?
    var planSelected = false
    var purchaseStarted = false
    var closeAt: Int64?
    var closeID: String?
    var closeResult: String?
    var closeVia: String?
    var closeOpenS: Double?
    var closeProduct: String?

    /// Columns read by ``fold(_:into:)``, in this order.
    static let eventsSQL = """
        SELECT occurred_at, name, id, pw_id, source, user_id, product, result, via, open_s
        FROM events WHERE rowid > ? AND rowid <= ?
        """

    /// Folds the current events row into `folds` (keyed by pw_id). Text columns are read only
    /// when the event can change the fold, which keeps time-ordered input cheap.
    static func fold(_ row: Row, into folds: inout [String: PresentationFold]) {
        let pw = row.string(at: 3) ?? ""
        fold(row, into: &folds[pw])   // mutates the stored value in place (no copy)
    }

    static func fold(_ row: Row, into slot: inout PresentationFold?) {
        let at = row.int64(at: 0)
        let name = row.string(at: 1) ?? ""
        if slot == nil {
            slot = PresentationFold(firstAt: at, firstID: row.string(at: 2) ?? "", placement: row.string(at: 4) ?? "",
                                    user: row.string(at: 5) ?? "")
        } else if at <= slot!.firstAt {
            let id = row.string(at: 2) ?? ""
            if at < slot!.firstAt || codePointLess(id, slot!.firstID) {
                slot!.firstAt = at
                slot!.firstID = id
                slot!.placement = row.string(at: 4) ?? ""
                slot!.user = row.string(at: 5) ?? ""
            }
        }
        slot!.apply(row, name: name, at: at)
    }

    private mutating func apply(_ row: Row, name: String, at: Int64) {
        switch name {
        case "paywall_shown":
            if impressionAt.map({ at < $0 }) ?? true { impressionAt = at }
        case "paywall_plan_selected":
            planSelected = true
        case "paywall_purchase_started":
            purchaseStarted = true
        case "paywall_closed":
            if let closeAt, at > closeAt { return }
            let id = row.string(at: 2) ?? ""
            if let closeAt, let closeID, at == closeAt, !codePointLess(id, closeID) { return }
            closeAt = at
            closeID = id
            closeResult = row.string(at: 7)
            closeVia = row.string(at: 8)
            closeOpenS = row.double(at: 9)
            closeProduct = row.string(at: 6)
        default:
            break
        }
    }

    /// Binds this fold to `rollup_merge_presentation.sql` (parameters in order of first appearance).
    func bind(_ statement: Statement, pwID: String, customerKey: Int64, placementKey: Int64) {
        statement.reset()
        statement.bind(pwID, at: 1)
        statement.bind(firstAt, at: 2)
        statement.bind(firstID, at: 3)
        statement.bind(placement, at: 4)
        statement.bind(user, at: 5)
        statement.bind(impressionAt, at: 6)
        statement.bind(Int64(planSelected ? 1 : 0), at: 7)
        statement.bind(Int64(purchaseStarted ? 1 : 0), at: 8)
        statement.bind(closeAt, at: 9)
        statement.bind(closeID, at: 10)
        statement.bind(closeResult, at: 11)
        statement.bind(closeVia, at: 12)
        statement.bind(closeOpenS, at: 13)
        statement.bind(closeProduct, at: 14)
        statement.bind(customerKey, at: 15)
        statement.bind(placementKey, at: 16)
    }
}
