import Foundation

/// A stored event as the uploader sees it: its place in the store (`seq`) and its record.
public struct UploadItem: Sendable, Hashable {
    /// The event's `seq` in the store (increasing in insertion order, never reused).
    public var seq: Int64
    /// The stored event.
    public var event: EventRecord
    /// Whether this store already delivered the impression to RevenueCat itself (its own forwarder),
    /// so a collector must record it as forwarded by the device, whatever the configured side.
    public var forwardedHere: Bool

    /// Creates an item.
    public init(seq: Int64, event: EventRecord, forwardedHere: Bool = false) {
        self.seq = seq
        self.event = event
        self.forwardedHere = forwardedHere
    }
}

/// Storage of every recorded event for the uploader: events in `seq` order after a cursor (the
/// highest `seq` a collector acknowledged), the cursor itself, a lease and destination pauses.
/// The uploader talks only to this protocol, as the forwarder talks to ``EventOutbox``.
///
/// Times are Unix milliseconds. Every method may throw the implementation's storage error.
public protocol EventUploadQueue: DeliveryLeasing, DeliveryPauses {
    /// The highest `seq` acknowledged so far, 0 before the first acknowledgement.
    func uploadCursor() throws -> Int64
    /// Up to `limit` stored events with `seq` greater than `seq`, in `seq` order.
    func events(after seq: Int64, limit: Int) throws -> [UploadItem]
    /// Records an acknowledgement, in one transaction: the cursor becomes `seq` (never lower), and
    /// when `handOffImpressions` is set (the collector forwards this store's impressions), every
    /// impression up to `seq` still waiting in the outbox leaves it as handed to the collector, so
    /// nothing here can send it to RevenueCat as well.
    func acknowledge(through seq: Int64, handOffImpressions: Bool, at: Int64) throws
}
