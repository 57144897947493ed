/// What a store holds, for `paywall-analytics stats`.
public struct StoreStats: Sendable, Hashable {
    /// Stored events per event name (catalog names; names absent from the store are omitted).
    public var eventsByName: [String: Int]
    /// Earliest `occurred_at` (Unix ms), `nil` for an empty store.
    public var firstOccurredAt: Int64?
    /// Latest `occurred_at` (Unix ms), `nil` for an empty store.
    public var lastOccurredAt: Int64?
    /// Impressions waiting for RevenueCat.
    public var outboxPending: Int
    /// Impressions RevenueCat accepted (or imported as already forwarded).
    public var outboxDelivered: Int
    /// Of ``outboxDelivered``, impressions the app install forwarded itself (uploaded to a collector
    /// with `X-Paywall-Forwarding: device`): this store never sends them.
    public var outboxForwardedByDevice: Int
    /// Impressions RevenueCat refused (see dead letters).
    public var outboxDead: Int
    /// Rows in the quarantine.
    public var quarantined: Int
    /// Open dead letters: refusals not requeued since (what needs attention).
    public var deadLetters: Int
    /// Dead letters requeued earlier (history: their impressions were sent again).
    public var deadLettersRequeued = 0
    /// Total events the recorder dropped at its buffer bound, as persisted in `drops`.
    public var droppedAtBound: Int
    /// Events of forgotten customers refused since (``Suppression``), as persisted in `suppressed_events`.
    public var suppressed = 0
    /// Customers on the suppression list (forgotten, not allowed again).
    public var suppressedCustomers = 0
    /// Of ``outboxDelivered``, impressions handed to a collector that forwards them (uploaded with
    /// `X-Paywall-Forwarding: collector`): this store never sends them.
    public var outboxHandedToCollector = 0
    /// Events a collector acknowledged (up to the upload cursor); `nil` when this store never uploaded.
    public var uploadedThroughSeq: Int64?
    /// Events stored after the upload cursor (not yet acknowledged); 0 when this store never uploaded.
    public var uploadPending = 0
    /// Events deleted by device retention, in total (uploaded and done, past the retention or the byte budget).
    public var deletedByRetention = 0

    /// Creates statistics.
    public init(
        eventsByName: [String: Int] = [:], firstOccurredAt: Int64? = nil, lastOccurredAt: Int64? = nil,
        outboxPending: Int = 0, outboxDelivered: Int = 0, outboxForwardedByDevice: Int = 0, outboxDead: Int = 0,
        quarantined: Int = 0,
        deadLetters: Int = 0, droppedAtBound: Int = 0
    ) {
        self.eventsByName = eventsByName
        self.firstOccurredAt = firstOccurredAt
        self.lastOccurredAt = lastOccurredAt
        self.outboxPending = outboxPending
        self.outboxDelivered = outboxDelivered
        self.outboxForwardedByDevice = outboxForwardedByDevice
        self.outboxDead = outboxDead
        self.quarantined = quarantined
        self.deadLetters = deadLetters
        self.droppedAtBound = droppedAtBound
    }

    /// All stored events.
    public var totalEvents: Int { eventsByName.values.reduce(0, +) }
}
