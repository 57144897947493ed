import Foundation

/// What the tracker knows of one presentation at a moment: enough to close it later if the process
/// dies with it open (``PresentationJournal``).
public struct PresentationSnapshot: Sendable, Hashable {
    /// The presentation (`pw_id`).
    public var pwID: UUID
    /// Its placement.
    public var source: String
    /// The RevenueCat offering, if any.
    public var offeringID: String?
    /// The RevenueCat dashboard placement, if any.
    public var placementID: String?
    /// The customer.
    public var userID: String
    /// The app session, if known.
    public var sessionID: UUID?
    /// Seconds the paywall was really on screen so far (the app said it appeared and the tracker was
    /// not suspended), summed over its visible periods, as of ``checkpointAt``.
    public var visibleSeconds: Double
    /// The wall time (Unix ms) the snapshot was taken: the last moment the presentation was known open.
    public var checkpointAt: Int64
    /// The plan last selected, if any (the product of a close without a purchase).
    public var lastProduct: String?
    /// The impression the tracker emitted, if it did (written here before it goes to the sink).
    public var impression: EventRecord?
    /// The close the tracker emitted, once closed (written here before it goes to the sink).
    public var close: EventRecord?

    /// Creates a snapshot.
    public init(
        pwID: UUID, source: String, offeringID: String? = nil, placementID: String? = nil, userID: String,
        sessionID: UUID? = nil, visibleSeconds: Double, checkpointAt: Int64, lastProduct: String? = nil,
        impression: EventRecord? = nil, close: EventRecord? = nil
    ) {
        self.pwID = pwID
        self.source = source
        self.offeringID = offeringID
        self.placementID = placementID
        self.userID = userID
        self.sessionID = sessionID
        self.visibleSeconds = visibleSeconds
        self.checkpointAt = checkpointAt
        self.lastProduct = lastProduct
        self.impression = impression
        self.close = close
    }

    /// The close the library writes for a presentation whose process went away with it open:
    /// `result = dismissed`, `via = abandoned`, `open_s` = the visible time recorded (at most the
    /// catalog's bound), the plan last selected, dated at the last checkpoint, with `context`
    /// (where the event comes from: the presentation's own impression's, else the recovering app's).
    public func abandonedClose(context: EventContext = .empty) -> EventRecord {
        PaywallClosed(
            pwID: pwID, source: source, result: .dismissed, via: .abandoned,
            openS: min(max(visibleSeconds, 0), PresentationTracker.openSecondsBound), product: lastProduct
        ).record(
            id: UUIDv7.make(milliseconds: checkpointAt), occurredAt: checkpointAt, userID: userID,
            sessionID: sessionID, context: context)
    }
}

/// Where the tracker keeps the state of its open presentations so that a process killed with a
/// paywall on screen loses nothing: the store's `open_presentations` table in an app
/// (`PresentationJournalTable` in PaywallStore). The tracker saves a snapshot when a presentation
/// opens, on every change (visibility, plan, impression, close), on its periodic checkpoint and
/// on ``PresentationTracker/checkpoint()``; the impression and the close are saved *before* they
/// go to the sink, so whichever of the two survives a kill, the next start writes each once.
public protocol PresentationJournal: Sendable {
    /// Records the presentation's current state (replacing the previous snapshot of its `pw_id`).
    /// Called with the presentation's lock held: keep it short, and never call back into the tracker.
    func save(_ snapshot: PresentationSnapshot)
}
