/// Why an ``OutputFile`` could not be written.
public struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The output cannot be created or is of a kind that is never replaced.
        case cannotCreate
        /// Writing or syncing failed.
        case io
    }

    /// The kind of failure.
    public var kind: Kind
    /// The path as given.
    public var path: String
    /// What the system or the check reported.
    public var reason: String

    /// Creates an error.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// What went wrong.
    public var description: String { "\(path): \(reason)" }
}
