import Foundation

/// Opens paywall presentations and owns the rules of SPEC §2 so an app cannot get them wrong:
/// one impression after continuous visibility for the dwell time, exactly one close with the
/// right `open_s`, `via` and `product`, nothing after the close.
///
/// ```swift
/// let tracker = PresentationTracker(sink: recorder, clock: ContinuousClock(), now: .system)
/// let paywall = try tracker.open(source: "onboarding", userID: appUserID)
/// try paywall.appeared()
/// try paywall.selectPlan("pro_annual")
/// try paywall.close(.purchased(product: "pro_annual"))
/// ```
public final class PresentationTracker: Sendable {
    /// How impressions are decided.
    public enum ImpressionMode: Sendable, Hashable {
        /// The tracker emits `paywall_shown` once the paywall was visible continuously for `dwell`.
        case automatic(dwell: Duration)
        /// The app calls ``Presentation/reportImpression()`` itself; no timer runs.
        case appReported

        /// Automatic with the default dwell time of one second.
        public static let `default` = ImpressionMode.automatic(dwell: .seconds(1))
    }

    let sink: any EventSink
    let clock: MonotonicClock
    let now: Now
    let mode: ImpressionMode

    /// Creates a tracker.
    ///
    /// - Parameters:
    ///   - sink: where events go (the ``EventSink`` of the recorder).
    ///   - clock: the monotonic clock for dwell and `open_s` (`ContinuousClock()` in apps, a manual
    ///     clock in tests and simulations).
    ///   - now: the wall clock for `occurred_at`.
    ///   - impressionMode: automatic dwell (default 1 s) or app-reported.
    public init(sink: any EventSink, clock: any Clock<Duration>, now: Now, impressionMode: ImpressionMode = .default) {
        self.sink = sink
        self.clock = MonotonicClock(clock)
        self.now = now
        self.mode = impressionMode
    }

    /// Opens a presentation. Nothing is emitted until it appears (or, in app-reported mode, until
    /// the app reports an impression or closes it).
    ///
    /// - Parameters:
    ///   - source: the placement it was opened from (non-empty, at most 64 Unicode scalars and 192 UTF-8 bytes).
    ///   - offeringID: the RevenueCat offering that served it, if any.
    ///   - placementID: the RevenueCat dashboard placement, if any.
    ///   - userID: the RevenueCat app user id.
    ///   - sessionID: the app session, if known.
    /// - Throws: ``TrackerError/invalidValue(_:)`` when a value breaks the catalog.
    public func open(source: String, offeringID: String? = nil, placementID: String? = nil,
                     userID: String, sessionID: UUID? = nil) throws(TrackerError) -> Presentation {
        try Self.check("source", source)
        try Self.check("user_id", userID, envelope: true)
        if let offeringID { try Self.check("offering_id", offeringID) }
        if let placementID { try Self.check("placement_id", placementID) }
        let context = Presentation.Context(
            pwID: UUIDv7.make(milliseconds: now.milliseconds()), source: source, offeringID: offeringID,
            placementID: placementID, userID: userID, sessionID: sessionID)
        return Presentation(context: context, tracker: self)
    }

    /// Checks a text value against the catalog's length limits.
    static func check(_ name: String, _ value: String, envelope: Bool = false) throws(TrackerError) {
        let catalog = Catalog.bundled
        guard let spec = envelope ? catalog.envelope.first(where: { $0.name == name }) : catalog.property(named: name) else { return }
        if let problem = spec.lengthProblem(TextLength(value)) {
            throw .invalidValue(ValidationIssue(field: name, rule: problem.rule, value: value, message: problem.message))
        }
    }

    /// Wraps an event in an envelope with a fresh time-ordered id and emits it.
    func emit(_ event: some CatalogEvent, context: Presentation.Context, occurredAt: Int64) {
        sink.record(event.record(id: UUIDv7.make(milliseconds: occurredAt), occurredAt: occurredAt,
                                 userID: context.userID, sessionID: context.sessionID))
    }
}
