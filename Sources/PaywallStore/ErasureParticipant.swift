import PaywallSQLite

/// A module that keeps per-customer data in the store's file (the reports' rollups, for example)
/// and erases it when ``UserErasure`` forgets customers. It runs inside the erasing transaction,
/// after the store has found the customers' events and before it deletes them, so it can still read
/// them; whatever it deletes is overwritten as the store's rows are (`secure_delete`).
///
/// ```swift
/// struct RollupErasure: ErasureParticipant {
///     func erase(_ erased: ErasedEvents, in db: Database) throws -> [TableCount] { … }
/// }
/// let report = try UserErasure(store: store, participants: [RollupErasure()]).forget(["user-1"])
/// ```
public protocol ErasureParticipant: Sendable {
    /// Erases `erased`'s customers from this module's tables, inside the caller's transaction.
    ///
    /// - Returns: the rows erased per table, in the order to print them.
    /// - Throws: `StorageError`; the whole erasure is then rolled back.
    func erase(_ erased: ErasedEvents, in db: Database) throws -> [TableCount]
}

/// The events an erasure removes, as a participant sees them (read before they are deleted).
public struct ErasedEvents: Sendable {
    /// One erased event.
    public struct Event: Sendable, Hashable {
        /// Its events rowid (`seq`).
        public var seq: Int64
        /// Its presentation (`pw_id`, uppercase UUID text).
        public var pwID: String
        /// Its `occurred_at`, Unix milliseconds.
        public var occurredAt: Int64
        /// Whether it is an impression (`paywall_shown`).
        public var isImpression: Bool
    }

    /// The customers forgotten (exact `user_id` texts, no duplicates).
    public var userIDs: [String]
    /// Their stored events, by rowid.
    public var events: [Event]
    /// The presentations among ``events``' that also hold events of other customers (not erased):
    /// what such a presentation becomes depends on the events left.
    public var sharedPresentations: Set<String>
    /// How many of ``userIDs`` have at least one of ``events`` (the others matched no stored event).
    public var customersWithEvents = 0
}

/// Rows erased from one table.
public struct TableCount: Sendable, Hashable {
    /// The table's name.
    public var table: String
    /// Rows erased (or, for a count table, units taken off).
    public var rows: Int

    /// Creates a count.
    public init(table: String, rows: Int) {
        self.table = table
        self.rows = rows
    }
}
