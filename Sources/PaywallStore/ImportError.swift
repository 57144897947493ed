/// Why an import could not read its input (bad *data* is quarantined, not thrown).
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure (a front end picks its exit code by it).
    public enum Kind: Sendable, Hashable {
        /// The input does not exist.
        case missingInput
        /// The input could not be read.
        case unreadable
        /// An SQLite file that is not a PaywallAnalytics store.
        case notAStore
        /// An SQLite database given as a pipe, FIFO or device: it can only be read as a file.
        case databaseFromStream
    }

    /// The kind of failure.
    public var kind: Kind
    /// The input path (`-` for standard input).
    public var path: String
    /// What the system or the check reported.
    public var detail: String

    /// Creates an error.
    public init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    /// What went wrong and what to do.
    public var description: String {
        switch kind {
        case .missingInput:
            return "Cannot import \(path): the file does not exist (\(detail)). Check the path."
        case .unreadable:
            return "Cannot import \(path): reading failed (\(detail)). Check permissions and the disk, then retry."
        case .notAStore:
            return "Cannot import \(path): it is an SQLite file but not a PaywallAnalytics store (\(detail))."
        case .databaseFromStream:
            return "Cannot import \(path): it is an SQLite database, read from a pipe or device (\(detail)); "
                + "a database is imported from its file. Pass the database file itself."
        }
    }
}
