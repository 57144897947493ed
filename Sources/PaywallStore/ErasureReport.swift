/// What ``UserErasure/forget(_:suppress:)`` did: the rows erased per table, the suppression list
/// and how the file was cleaned. Never holds a user id.
public struct ErasureReport: Sendable, Hashable {
    /// Rows erased per table, store tables first, then each participant's.
    public var tables: [TableCount] = []
    /// Ids newly put on the suppression list (0 with `suppress: false`, or when already on it).
    public var suppressionsAdded = 0
    /// How many of the ids given had stored events (0 when none matched: nothing of theirs was stored).
    public var customersWithEvents = 0
    /// Whether the file was rebuilt (`VACUUM`) because copies of an erased id were left in free
    /// space of the database file after the checkpoint.
    public var vacuumed = false
    /// Whether an erased id's bytes still occur in the database file after the rebuild: then they
    /// are part of other data that is not the customer's (a placement or product name equal to the
    /// id, or another customer's id that contains it), which was kept.
    public var residueInOtherData = false

    /// Rows erased from `table` (0 when it was not touched).
    public func rows(in table: String) -> Int {
        tables.first { $0.table == table }?.rows ?? 0
    }

    /// Events erased.
    public var events: Int { rows(in: "events") }

    /// Rows erased or redacted in every table together (0: nothing stored matched the ids).
    public var rowsErased: Int { tables.reduce(0) { $0 + $1.rows } }
}
