import Foundation
import PaywallCore
import PaywallWire

/// What one answer means for the batch that was sent, decided by the destination's adapter.
public enum DeliveryVerdict: Sendable, Equatable {
    /// The destination took the batch (its 2xx was valid): record it and go on.
    case delivered(EventCounts)
    /// Nothing of the batch was taken and trying again can help: keep it, and pause the whole
    /// destination for `after` (every batch, every process).
    case retry(after: Duration, reason: String)
    /// The destination refused the batch for good (RevenueCat's 4xx): the adapter records the
    /// refusal (dead letters) and the pass goes on with the next batch.
    case refused(status: Int, reason: String)
    /// The batch is too large for the destination (413): send it again as half as many items.
    case shrink(reason: String)
}

/// How many items of a delivered batch the destination took, and how: the name this type had
/// before it became one with the store's counts (`EventCounts`, in PaywallWire).
@available(*, deprecated, renamed: "EventCounts")
public typealias DeliveryCounts = EventCounts

/// One destination of the delivery mechanism (``DeliveryEngine``): a small adapter that knows what
/// to send next, the wire format, what an answer means and where an outcome is recorded. The engine
/// owns everything else — the lease, the destination-wide pause, the batch loop, retries by
/// ``RetryPolicy`` and the summary — once for every destination.
///
/// RevenueCat's events endpoint (`Forwarder` in `RevenueCatForwarder`) and a collector (the uploader
/// in `PaywallUploader`) are the two adapters.
public protocol DeliveryDestination: Sendable {
    /// One batch as the adapter reads it from storage.
    associatedtype Batch: Sendable

    /// The destination's key in the pause storage (``DeliveryDestinationName``).
    var pauseKey: String { get }
    /// The destination in a sentence: `RevenueCat`, `the collector`.
    var displayName: String { get }

    /// The next batch of at most `limit` items to send at `now`, `nil` when nothing is due.
    func nextBatch(limit: Int, now: Int64) throws -> Batch?
    /// The number of items in `batch`.
    func count(of batch: Batch) -> Int
    /// The number of this attempt at `batch` (1 for the first), given the destination's failed passes
    /// in a row (`failures`, from its pause).
    func attempt(of batch: Batch, failures: Int) -> Int
    /// The HTTP request that sends `batch`.
    func request(for batch: Batch, attempt: Int) throws -> HTTPRequest
    /// What `response` means for `batch`.
    func verdict(for response: HTTPResponse, of batch: Batch, attempt: Int, now: Int64) -> DeliveryVerdict
    /// What a request that got no usable response means (a retry with backoff, in both adapters).
    func verdict(for error: TransportError, of batch: Batch, attempt: Int) -> DeliveryVerdict
    /// Records `verdict` for `batch` in storage (a shrink records nothing).
    func record(_ verdict: DeliveryVerdict, of batch: Batch, attempt: Int, at: Int64) throws

    /// How many batches may be on the wire at once (default 1: each batch waits for the answer to
    /// the one before). With more, the engine sends ``nextBatch(after:limit:now:)`` while earlier
    /// batches wait for their answers, and still records answers strictly in order.
    var maxInFlight: Int { get }
    /// The batch that would come after `previous` once `previous` is delivered, read before its
    /// answer arrives; used only when ``maxInFlight`` is above 1 (default: `nil`).
    func nextBatch(after previous: Batch, limit: Int, now: Int64) throws -> Batch?
}

extension DeliveryDestination {
    /// One batch at a time.
    public var maxInFlight: Int { 1 }
    /// Nothing is read ahead.
    public func nextBatch(after previous: Batch, limit: Int, now: Int64) throws -> Batch? { nil }
}
