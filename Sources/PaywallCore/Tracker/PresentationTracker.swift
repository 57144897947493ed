import Foundation
import PaywallLock

/// Opens paywall presentations and owns the rules of a presentation so an app cannot get them wrong:
/// one impression after continuous visibility for the dwell time, exactly one close with the
/// right `open_s`, `via` and `product`, nothing after the close.
///
/// ```swift
/// let tracker = PresentationTracker(sink: recorder, clock: ContinuousClock(), now: .system)
/// let paywall = try tracker.open(source: "onboarding", userID: appUserID)
/// paywall.appeared()
/// paywall.selectPlan("pro_annual")
/// paywall.close(.purchased(product: "pro_annual"))
/// ```
///
/// ``suspend()`` (the app went to the background) takes every visible paywall off screen for
/// dwell; ``resume()`` puts back what the app had on screen.
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

    /// The presentations not yet closed, and whether the tracker is suspended.
    struct Registry {
        var suspended = false
        var open: [ObjectIdentifier: WeakPresentation] = [:]
    }

    struct WeakPresentation {
        weak var presentation: Presentation?
    }

    let sink: any EventSink
    let clock: MonotonicClock
    let now: Now
    let mode: ImpressionMode
    let onMisuse: @Sendable (TrackerError) -> Void
    /// Where open presentations' state is kept for a process that dies (``PresentationJournal``).
    let journal: (any PresentationJournal)?
    /// How often a visible presentation is checkpointed to the journal (`nil`: only on changes and
    /// ``checkpoint()``).
    let checkpointInterval: Duration?
    /// Where the events come from, written on every event (``EventContext/empty``: nothing said).
    public let eventContext: EventContext
    let registry = Lock(Registry())
    /// Serializes ``suspend()`` and ``resume()`` (held while they visit the presentations; a
    /// presentation never takes it, so the lock order is transitions, presentation, registry).
    private let transitions = Lock(())

    /// The catalog's upper bound of `open_s` (read from the catalog, not written here).
    static let openSecondsBound: Double = Catalog.bundled.property(named: "open_s")?.max ?? .greatestFiniteMagnitude

    /// The default misuse hook: in debug builds a line on standard error, in release nothing.
    public static let defaultMisuseHandler: @Sendable (TrackerError) -> Void = { error in
        #if DEBUG
            FileHandle.standardError.write(Data("PaywallAnalytics tracker misuse: \(error)\n".utf8))
        #endif
    }

    /// Creates a tracker.
    ///
    /// - Parameters:
    ///   - sink: where events go (the ``EventSink`` of the recorder).
    ///   - clock: the monotonic clock for dwell and `open_s` (`ContinuousClock()` in apps, a manual
    ///     clock in tests and simulations).
    ///   - now: the wall clock for `occurred_at`.
    ///   - impressionMode: the default for presentations: automatic dwell (1 s) or app-reported.
    ///   - onMisuse: receives every misuse (a second close, an action after the close or off
    ///     screen…); the call that caused it emitted nothing. Called on the caller's thread.
    ///   - journal: where each open presentation's state is kept, so that the next start closes
    ///     what a killed process left open (`nil`: nowhere).
    ///   - checkpointInterval: how often a visible presentation's visible time is saved in the
    ///     journal besides every change (`nil`: only on changes and ``checkpoint()``).
    ///   - eventContext: the app version, platform and the rest written on every event
    ///     (``DeviceContext/current(bundle:processInfo:)`` in an app; the facade passes it).
    public init(
        sink: any EventSink, clock: any Clock<Duration>, now: Now, impressionMode: ImpressionMode = .default,
        onMisuse: @escaping @Sendable (TrackerError) -> Void = PresentationTracker.defaultMisuseHandler,
        journal: (any PresentationJournal)? = nil, checkpointInterval: Duration? = .seconds(5),
        eventContext: EventContext = .empty
    ) {
        self.eventContext = eventContext
        self.sink = sink
        self.clock = MonotonicClock(clock)
        self.now = now
        self.mode = impressionMode
        self.onMisuse = onMisuse
        self.journal = journal
        self.checkpointInterval = checkpointInterval
    }

    /// Saves every open presentation's state in the journal now (an impression whose dwell time is
    /// reached is emitted first). The tracker does this by itself on every change and periodically;
    /// call it when the app may be killed at once (a memory warning, before a risky operation).
    public func checkpoint() {
        let elapsed = clock.elapsed()
        let presentations = registry.withLock { $0.liveAndPruned() }
        for presentation in presentations { presentation.checkpoint(at: elapsed) }
    }

    /// Whether ``suspend()`` was called without a ``resume()`` since.
    public var isSuspended: Bool { registry.withLock { $0.suspended } }

    /// The app went to the background: every visible presentation leaves the screen (an
    /// impression whose dwell time was reached is emitted first; the dwell timers stop), and
    /// `appeared()` calls while suspended take effect at ``resume()``. Background time never
    /// counts as dwell. Calling it twice is the same as once.
    public func suspend() {
        transitions.withLock { _ in
            let elapsed = clock.elapsed()
            let presentations = registry.withLock { registry in
                registry.suspended = true
                return registry.liveAndPruned()
            }
            for presentation in presentations { presentation.suspended(at: elapsed) }
        }
    }

    /// The app is in the foreground again: every presentation the app had on screen (it called
    /// `appeared()` and not `disappeared()` since) becomes visible again, and its dwell starts over.
    public func resume() {
        transitions.withLock { _ in
            let elapsed = clock.elapsed()
            let presentations = registry.withLock { registry in
                registry.suspended = false
                return registry.liveAndPruned()
            }
            for presentation in presentations { presentation.resumed(at: elapsed) }
        }
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
    ///   - impressionMode: this presentation's impression mode; `nil` takes the tracker's default.
    /// - Throws: ``TrackerError/invalidValue(_:)`` when a value breaks the catalog.
    public func open(
        source: String, offeringID: String? = nil, placementID: String? = nil,
        userID: String, sessionID: UUID? = nil,
        impressionMode: ImpressionMode? = nil
    ) throws(TrackerError) -> Presentation {
        try Self.check("source", source)
        try Self.check("user_id", userID, envelope: true)
        if let offeringID { try Self.check("offering_id", offeringID) }
        if let placementID { try Self.check("placement_id", placementID) }
        let context = Presentation.Context(
            pwID: UUIDv7.make(milliseconds: now.milliseconds()), source: source, offeringID: offeringID,
            placementID: placementID, userID: userID, sessionID: sessionID, mode: impressionMode ?? mode)
        let presentation = Presentation(context: context, tracker: self)
        registry.withLock { $0.open[ObjectIdentifier(presentation)] = WeakPresentation(presentation: presentation) }
        let elapsed = clock.elapsed()
        presentation.state.withLock { presentation.journal($0, at: elapsed) }
        return presentation
    }

    /// Forgets a closed presentation.
    func unregister(_ presentation: Presentation) {
        _ = registry.withLock { $0.open.removeValue(forKey: ObjectIdentifier(presentation)) }
    }

    /// Checks a text value against the catalog's length limits.
    static func check(_ name: String, _ value: String, envelope: Bool = false) throws(TrackerError) {
        let catalog = Catalog.bundled
        guard let spec = envelope ? catalog.envelope.first(where: { $0.name == name }) : catalog.property(named: name)
        else { return }
        if let problem = spec.lengthProblem(TextLength(value)) {
            throw .invalidValue(
                ValidationIssue(field: name, rule: problem.rule, value: value, message: problem.message))
        }
    }

    /// Wraps an event in an envelope with a fresh time-ordered id and emits it.
    func emit(_ event: some CatalogEvent, context: Presentation.Context, occurredAt: Int64) {
        sink.record(record(event, context: context, occurredAt: occurredAt))
    }

    /// Wraps an event in an envelope with a fresh time-ordered id.
    func record(_ event: some CatalogEvent, context: Presentation.Context, occurredAt: Int64) -> EventRecord {
        event.record(
            id: UUIDv7.make(milliseconds: occurredAt), occurredAt: occurredAt,
            userID: context.userID, sessionID: context.sessionID, context: eventContext)
    }
}

extension PresentationTracker.Registry {
    /// The open presentations still alive; forgets those the app dropped without closing.
    mutating func liveAndPruned() -> [Presentation] {
        open = open.filter { $0.value.presentation != nil }
        return open.values.compactMap(\.presentation)
    }
}
