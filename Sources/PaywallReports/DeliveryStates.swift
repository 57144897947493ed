import PaywallSQLite

/// The outbox state of each exported impression (`delivery_state`), found by walking the outbox in
/// rowid order next to the events: impressions enter the outbox in the same transaction and order
/// as their events, so the next outbox row is almost always the one wanted. When it is not (a
/// filtered export, an imported store), a primary-key lookup answers instead — never a wrong state.
struct DeliveryStates {
    private let cursor: Statement
    private let lookup: Statement
    private var hasRow: Bool

    init(_ db: Database) throws {
        cursor = try db.makeStatement("SELECT event_id, state FROM outbox ORDER BY rowid")
        lookup = try db.makeStatement("SELECT state FROM outbox WHERE event_id = ?")
        hasRow = try cursor.step()
    }

    /// Writes the state of the event in `row` (columns 0 id, 1 name), or an empty field.
    mutating func write(for row: Row, into writer: inout CSVWriter) throws {
        let isImpression = row.withUnsafeText(at: 1) { $0.elementsEqual("paywall_shown".utf8) }
        guard isImpression else { writer.empty(); return }
        if hasRow {
            let aligned = row.withUnsafeText(at: 0) { id in cursor.row.withUnsafeText(at: 0) { $0.elementsEqual(id) } }
            if aligned {
                cursor.row.withUnsafeText(at: 1) { writer.text(bytes: $0) }
                hasRow = try cursor.step()
                return
            }
        }
        lookup.reset()
        lookup.bind(row.string(at: 0), at: 1)
        if try lookup.step() { lookup.row.withUnsafeText(at: 0) { writer.text(bytes: $0) } } else { writer.empty() }
        lookup.reset()
    }
}
