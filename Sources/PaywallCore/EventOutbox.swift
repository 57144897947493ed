import Foundation

/// An impression waiting for RevenueCat, as the forwarder sees it.
public struct OutboxItem: Sendable, Hashable {
    /// The stored `paywall_shown` event.
    public var event: EventRecord
    /// Delivery attempts made so far (0 before the first).
    public var attempts: Int

    /// Creates an item.
    public init(event: EventRecord, attempts: Int) {
        self.event = event
        self.attempts = attempts
    }
}

/// Storage of impressions awaiting delivery to RevenueCat, with their backoff state, dead
/// letters, a forwarding lease (``DeliveryLeasing``) and RevenueCat's destination-wide pause
/// (``DeliveryPauses``). The forwarder talks only to this protocol; the SQLite
/// store implements it, and an in-memory implementation serves fast tests.
///
/// Times are Unix milliseconds. Every method may throw the implementation's storage error.
public protocol EventOutbox: DeliveryLeasing, DeliveryPauses {
    /// Up to `limit` pending impressions whose next attempt is due at `now`, in `occurred_at`
    /// order (ties by id).
    func due(now: Int64, limit: Int) throws -> [OutboxItem]
    /// The earliest next-attempt time among pending impressions, or `nil` when none is pending.
    func nextAttemptTime() throws -> Int64?
    /// Marks impressions as accepted by RevenueCat.
    func markDelivered(_ ids: [UUID], at: Int64) throws
    /// Records a failed attempt: sets the attempt count and the earliest next attempt.
    func scheduleRetry(_ ids: [UUID], attempts: Int, notBefore: Int64) throws
    /// Moves impressions to the dead letters with the HTTP status and a response excerpt.
    func deadLetter(_ ids: [UUID], status: Int, reason: String, at: Int64) throws
    /// Puts every dead letter back into the pending outbox; returns how many.
    func requeueDeadLetters(now: Int64) throws -> Int
}
