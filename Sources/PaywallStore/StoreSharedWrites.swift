import PaywallSQLite

/// The store's privacy and quarantine writes, for modules that keep their own rows in the store's
/// file (the subscription events) and must follow the same rules inside their own transaction: the
/// one quarantine table (with its dedupe by the input's bytes and its refusal of a forgotten
/// customer's input) and the one suppression list with its count of refused inputs.
///
/// ```swift
/// try connection.transaction(.immediate) { db in
///     let forgotten = try StoreSharedWrites.suppressionList(db)
///     if forgotten?.isForgotten("user-1") == true { try StoreSharedWrites.countSuppressed(1, at: now, db) }
/// }
/// ```
public enum StoreSharedWrites {
    /// What became of a quarantine entry.
    public enum QuarantineOutcome: Sendable, Equatable {
        /// A new quarantine row.
        case stored
        /// The same input (by its bytes) was already quarantined: nothing added.
        case alreadyQuarantined
        /// The input names a forgotten customer: not stored, counted in `suppressed_events`.
        case suppressed
    }

    /// Adds `entry` to the quarantine inside the caller's transaction, as the store's own write
    /// paths do (see the store's quarantine rules).
    public static func quarantine(_ entry: QuarantineEntry, _ db: Database) throws -> QuarantineOutcome {
        switch try EventWriter(db: db).quarantineResult(entry) {
        case .stored: .stored
        case .alreadyQuarantined: .alreadyQuarantined
        case .suppressed: .suppressed
        }
    }

    /// The suppression list of forgotten customers, or `nil` when nobody is on it (one indexed probe).
    public static func suppressionList(_ db: Database) throws -> ForgottenCustomers? {
        try Suppression.load(db).map(ForgottenCustomers.init)
    }

    /// Counts `count` refused inputs of forgotten customers at `time` in `suppressed_events` (nothing when zero).
    public static func countSuppressed(_ count: Int, at time: Int64, _ db: Database) throws {
        try Suppression.recordSuppressed(count, at: time, db)
    }

    /// A loaded suppression list: asks whether an id is forgotten without ever holding the ids.
    public struct ForgottenCustomers: Sendable {
        let list: Suppression

        /// Whether `userID` (exact bytes) is on the list.
        public func isForgotten(_ userID: String) -> Bool { list.contains(userID) }
    }
}
