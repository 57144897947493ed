/// The result of one ``DeliveryEngine`` pass.
public enum DeliveryPass: Sendable, Equatable {
    /// Another pass holds the destination's lease on this database; nothing was sent.
    case busy
    /// The pass ran.
    case completed(DeliveryReport)
}

/// What one delivery pass did, for any destination. Counts and status text only, never a key.
public struct DeliveryReport: Sendable, Equatable {
    /// Why a pass ended.
    public enum Stop: String, Sendable, Equatable {
        /// Nothing was due.
        case nothingDue = "nothing due"
        /// The pass sent its maximum number of batches; more may be due.
        case batchLimit = "batch limit reached"
        /// A batch must be retried later; the destination is paused until ``DeliveryReport/pausedUntil``.
        case unavailable = "destination unavailable"
        /// An earlier failure paused the destination; nothing was sent (see ``DeliveryReport/pausedUntil``).
        case paused = "destination paused"
        /// Another owner took the lease after this one expired.
        case leaseLost = "lease lost"
        /// The task running the pass was cancelled.
        case cancelled
    }

    /// Items the destination took (RevenueCat: delivered; collector: accepted).
    public var accepted = 0
    /// Items the destination already had.
    public var duplicates = 0
    /// Items the destination kept apart as invalid.
    public var quarantined = 0
    /// Items the destination refused because their customer was forgotten there (a collector's
    /// suppression list); never sent again.
    public var suppressed = 0
    /// Items kept for a later pass because the destination failed.
    public var willRetry = 0
    /// Items refused for good (RevenueCat: dead-lettered).
    public var refused = 0
    /// Of ``refused``, by the HTTP status that refused them.
    public var refusedByStatus: [Int: Int] = [:]
    /// HTTP requests made.
    public var requests = 0
    /// Request body bytes sent, as sent (compressed when the adapter compresses).
    public var bytesSent = 0
    /// Times a batch was halved after a 413.
    public var shrinks = 0
    /// Why the pass ended.
    public var stop: Stop = .nothingDue
    /// The last HTTP status received, if the last request got a response.
    public var lastStatus: Int?
    /// The last failure as a sentence (what went wrong and what happens now), if any.
    public var lastFailure: String?
    /// Until when (Unix ms) the destination is paused, when the pass ended paused or unavailable.
    public var pausedUntil: Int64?

    /// Creates an empty report.
    public init() {}

    /// Whether the destination could not take the items now (a retry is due later).
    public var unavailable: Bool { stop == .unavailable || stop == .paused }
}
