/// Why ``UserErasure`` refused a list of user ids (nothing was changed). The message never holds an id.
public struct ErasureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the list.
    public enum Kind: Sendable, Equatable {
        /// No id was given.
        case noIDs
        /// The id at this 1-based position is empty.
        case emptyID(position: Int)
        /// The id at this 1-based position is longer than any stored `user_id` can be.
        case tooLong(position: Int, bytes: Int)
    }

    /// The problem.
    public var kind: Kind

    /// Creates an error.
    public init(_ kind: Kind) { self.kind = kind }

    /// What went wrong and what to do.
    public var description: String {
        switch kind {
        case .noIDs:
            "no user id was given; name each customer to forget with --user ID (repeatable)"
        case .emptyID(let position):
            "user id number \(position) is empty; give each customer's exact RevenueCat app user id"
        case .tooLong(let position, let bytes):
            "user id number \(position) is \(bytes) bytes long, more than the \(UserErasure.maxIDBytes) bytes a stored "
                + "user_id can have, so no event can carry it; check that the id was copied whole and nothing else"
        }
    }
}
