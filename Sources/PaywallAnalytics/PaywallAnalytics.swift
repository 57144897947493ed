import Foundation
import PaywallCore
import PaywallLock
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

/// Everything an app or paywall server embeds, wired together: the batching ``Recorder`` on a
/// SQLite file, the ``PresentationTracker`` feeding it, and the delivery of impressions to
/// RevenueCat (this project's HTTP forwarder, the app's own closure, or off) running
/// periodically, after every ``flush()`` and on ``suspend()``.
///
/// ```swift
/// let analytics = try PaywallAnalytics(configuration: .init(databasePath: try DatabaseLocation.applicationSupport()))
/// let paywall = try analytics.tracker.open(source: "onboarding", userID: appUserID)
/// paywall.appeared()
/// paywall.close(.dismissed(via: .closeButton))
/// await analytics.suspend()         // the app goes to the background (done by the facade itself
/// analytics.resume()                // … and comes back              on Apple platforms: handle(_:))
/// try await analytics.shutdown()
/// ```
public final class PaywallAnalytics: Sendable {
    /// The event sink; record typed events here directly if you do not use the tracker.
    public let recorder: Recorder
    /// Opens presentations and emits their events into ``recorder``.
    public let tracker: PresentationTracker
    /// The forwarding loop, `nil` when forwarding is off (chosen, or no usable API key).
    public let forwarding: ForwardingLoop?
    private let forwardingTask: Task<Void, Never>?
    /// The upload loop to the collector, `nil` when uploading is off (see ``uploadStatus``).
    public let uploading: DeliveryLoop?
    private let uploadingTask: Task<Void, Never>?
    /// Whether events are uploaded to a collector, and if not, why.
    public let uploadStatus: UploadStatus
    let clock: any Clock<Duration>
    let diagnostics: @Sendable (String) -> Void
    /// The install's opt-out, read from the store on open (``optOut()``, ``optIn()``).
    let consent: ConsentGate
    /// The open presentations' state in the store (``PresentationJournalTable``).
    let journal: PresentationJournalTable
    /// What the start did with the presentations a killed process left open.
    public let recovery: PresentationJournalTable.Recovery
    /// How background time is asked for around a suspend (``handle(_:)``).
    let backgroundTasks: BackgroundTaskRunner
    /// The lifecycle notifications observed, if any (set once at the end of init, removed at shutdown).
    let lifecycle = Lock<LifecycleObservation?>(nil)
    var lifecycleObservation: LifecycleObservation? { lifecycle.withLock { $0 } }

    /// Opens the store, starts the recorder and, unless forwarding is off, the forwarding loop.
    ///
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - environment: where `REVENUECAT_API_KEY` (and the collector's `PAYWALL_COLLECTOR_KEY`) is
    ///     read from when the configuration has no key: by default ``keyEnvironment``, the process's
    ///     environment for command-line and server processes and none in an app.
    ///   - clock: the monotonic clock for dwell, intervals, backoff and the suspend budget.
    ///   - now: the wall clock for timestamps.
    ///   - diagnostics: recorder failures, forwarding failures, tracker misuse and the key
    ///     warning, as sentences (never a key; user ids only in misuse of your own calls).
    ///   - backgroundTasks: how background time is asked for around a suspend (default: the
    ///     platform's, `UIApplication.beginBackgroundTask` on iOS, nothing elsewhere).
    /// An install that opted out before (``optOut()``) starts opted out: nothing is recorded or sent.
    ///
    /// - Throws: `StorageError` when the database cannot be opened (corrupt, read-only, newer schema).
    ///   Its message says what happened, not what your app should do: `.schemaTooNew` means a newer
    ///   version of the app wrote the file (ship that version; the file is untouched), `.constraint`
    ///   is a bug of this package (report it with the message).
    public init(
        configuration: Configuration,
        environment: [String: String] = PaywallAnalytics.keyEnvironment,
        clock: any Clock<Duration> = ContinuousClock(), now: Now = .system,
        diagnostics: @escaping @Sendable (String) -> Void = { _ in },
        backgroundTasks: BackgroundTaskRunner = .platform
    ) throws {
        let store = try EventStore(path: configuration.databasePath, now: now)
        self.backgroundTasks = backgroundTasks
        self.clock = clock
        self.diagnostics = diagnostics
        let optedOut = try Consent.isOptedOut(store)
        consent = ConsentGate(optedOut: optedOut)
        recorder = Recorder(store: store, policy: configuration.flushPolicy, clock: clock) {
            diagnostics($0.description)
        }
        recorder.setOptedOut(optedOut)
        // Before the tracker opens anything: close what a process that is gone left open (once, in the
        // transaction that deletes its state); an opted-out install only deletes that state.
        let eventContext = Self.eventContext(configuration, diagnostics: diagnostics)
        let journal = PresentationJournalTable(store: store, diagnostics: diagnostics)
        journal.setEnabled(!optedOut)
        self.journal = journal
        do {
            recovery = try journal.recoverAbandoned(writing: !optedOut, context: eventContext)
        } catch {
            recovery = .init()
            diagnostics(
                "the paywalls a previous run left open could not be closed now (the next start retries): \(error)")
        }
        tracker = PresentationTracker(
            sink: recorder, clock: clock, now: now, impressionMode: configuration.impressionMode,
            onMisuse: { diagnostics("paywall tracker misuse: \($0)") }, journal: journal,
            checkpointInterval: configuration.checkpointInterval, eventContext: eventContext)
        let gate = consent
        let forwarder = Self.makeForwarder(
            configuration, store: store, environment: environment, now: now,
            diagnostics: diagnostics
        ).map { GatedForwarder(base: $0, gate: gate) }
        if let forwarder {
            let loop = ForwardingLoop(forwarder: forwarder, interval: configuration.forwardingInterval, clock: clock) {
                result in
                switch result {
                case .failure(let error): diagnostics("RevenueCat forwarding failed: \(error)")
                case .success(.completed(let summary)): for message in Self.refusals(summary) { diagnostics(message) }
                case .success(.busy): break
                }
            }
            forwarding = loop
            forwardingTask = Task.detached { await loop.run() }
        } else {
            forwarding = nil
            forwardingTask = nil
        }
        let (uploader, uploadStatus) = Self.makeUploader(
            configuration, store: store, environment: environment, now: now)
        self.uploadStatus = uploadStatus
        if let uploader, let collector = configuration.collector {
            let retention = DeviceRetention(store: store, collector: collector, now: now)
            let loop = DeliveryLoop(
                runner: GatedUploader(base: uploader, gate: consent), interval: collector.uploadInterval,
                clock: clock
            ) { result in
                for message in Self.uploadDiagnostics(result) { diagnostics(message) }
                retention.afterUpload(result, diagnostics: diagnostics)
            }
            uploading = loop
            uploadingTask = Task.detached { await loop.run() }
        } else {
            if configuration.collector != nil, case .off(let reason) = uploadStatus { diagnostics(reason) }
            uploading = nil
            uploadingTask = nil
        }
        if configuration.observesAppLifecycle {
            let observation = LifecycleObservation { [weak self] event in
                guard let self else { return }
                Task { await self.handle(event) }
            }
            lifecycle.withLock { $0 = observation }
        }
    }

    private static func makeForwarder(
        _ configuration: Configuration, store: EventStore, environment: [String: String],
        now: Now, diagnostics: @Sendable (String) -> Void
    ) -> (any ImpressionForwarding)? {
        switch configuration.forwarding {
        case .off:
            return nil
        case .closure(let handler):
            return ClosureForwarder(
                outbox: SQLiteOutbox(store: store), retryPolicy: configuration.retryPolicy,
                now: now, handler: handler)
        case .http:
            do {
                let resolved = try APIKey.resolve(configured: configuration.revenueCatAPIKey, environment: environment)
                if let warning = resolved.warning { diagnostics(warning.description) }
                return Forwarder(
                    outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
                    configuration: ForwarderConfiguration(
                        apiKey: resolved.key, endpoint: configuration.revenueCatEndpoint,
                        retryPolicy: configuration.retryPolicy,
                        sandbox: configuration.revenueCatSandbox),
                    now: now)
            } catch {
                diagnostics("RevenueCat forwarding is off: \(error)")
                return nil
            }
        }
    }

    /// Returns once everything recorded before the call is committed and durable, then asks the
    /// forwarder to send the new impressions, and the uploader the new events, without waiting for
    /// their intervals.
    ///
    /// - Throws: `StorageError` when the commit failed (the events stay buffered and are retried).
    public func flush() async throws {
        try await commit()
        forwarding?.trigger()
        uploading?.trigger()
    }

    /// Commits what is buffered, then deletes the saved state of the presentations closed before
    /// (their closes are durable now).
    func commit() async throws {
        let closed = journal.closedSoFar()
        try await recorder.flush()
        do { try journal.purge(closed) } catch {
            diagnostics("the state of closed paywalls stays until the next flush: \(error)")
        }
    }

    /// Stops forwarding and uploading, commits what is buffered and closes the recorder. A paywall
    /// still open is closed at the next start on this store (`via = abandoned`).
    public func shutdown() async throws {
        forwardingTask?.cancel()
        uploadingTask?.cancel()
        lifecycle.withLock { observation in
            observation?.remove()
            observation = nil
        }
        let closed = journal.closedSoFar()
        journal.stop()
        try await recorder.close()
        try? journal.purge(closed)
    }
}

extension PaywallAnalytics {
    /// One diagnostic per refusing status of a forwarding pass: how many impressions went to the
    /// dead letters and, for 401 and 403, that the key itself was refused.
    static func refusals(_ summary: ForwardingSummary) -> [String] {
        summary.deadLetteredByStatus.sorted { $0.key < $1.key }.map { status, count in
            let impressions = "\(count) impression\(count == 1 ? "" : "s")"
            if status == 401 || status == 403 {
                return
                    "RevenueCat refused the API key (HTTP \(status)): \(impressions) went to the dead letters. Check that "
                    + "revenueCatAPIKey (or REVENUECAT_API_KEY) is this project's public SDK key, then requeue the dead letters."
            }
            return "RevenueCat refused \(impressions) (HTTP \(status)); they went to the dead letters with its answer."
        }
    }
}
