/// A destination-wide pause: after a `Retry-After`, a 5xx, a 429 or a network failure, no batch
/// goes to that destination before ``until``, whichever process runs the next pass.
public struct DeliveryPause: Sendable, Hashable {
    /// The earliest time (Unix ms) a batch may be sent again.
    public var until: Int64
    /// Failed passes in a row; the next backoff grows with it. A delivered batch clears the pause.
    public var failures: Int
    /// What the destination answered, as a sentence (never a key; at most a short excerpt).
    public var reason: String

    /// Creates a pause.
    public init(until: Int64, failures: Int, reason: String) {
        self.until = until
        self.failures = failures
        self.reason = reason
    }
}

/// Storage of destination-wide pauses, keyed by destination name (``DeliveryDestinationName``).
/// The SQLite store keeps them in a table, so a new process respects a pause an earlier one set.
public protocol DeliveryPauses: Sendable {
    /// The pause of `destination`, expired or not; `nil` when none is stored.
    func pause(of destination: String) throws -> DeliveryPause?
    /// Stores (replacing) the pause of `destination`.
    func setPause(_ pause: DeliveryPause, of destination: String) throws
    /// Removes the pause of `destination` (after a delivered batch).
    func clearPause(of destination: String) throws
}

/// The destination names used as pause keys, spelled once.
public enum DeliveryDestinationName {
    /// RevenueCat's events endpoint (the forwarder).
    public static let revenueCat = "revenuecat"
    /// A collector (`paywall-analytics serve`), the uploader's destination.
    public static let collector = "collector"
}
