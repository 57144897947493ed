import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite

/// The batching event sink: `record` appends to a bounded in-memory buffer and returns at once;
/// a background committer writes batches to the ``EventStore``, one transaction each.
///
/// Batches are committed when ``FlushPolicy/batchSize`` events are buffered, when
/// ``FlushPolicy/interval`` passes (on the injected clock), on ``flush()`` and on ``close()``.
/// At ``FlushPolicy/capacity`` events in memory the newest event is dropped and counted
/// (``droppedCount``, the `drops` table, the diagnostics hook). Storage failures go to the
/// diagnostics hook; held events stay in memory and are retried on the next interval or flush.
///
/// ```swift
/// let recorder = try Recorder(path: dbPath, now: .system) { print($0) }
/// recorder.record(event)          // never throws, never touches disk
/// try await recorder.flush()      // everything recorded before this is committed and synced
/// try await recorder.close()
/// ```
public final class Recorder: EventSink {
    let core: RecorderCore
    private let timer: Task<Void, Never>

    /// Starts a recorder writing to `store`.
    ///
    /// - Parameters:
    ///   - store: the event store (its connection is shared).
    ///   - policy: batch size, bound and interval.
    ///   - clock: drives the interval (a manual clock in tests).
    ///   - diagnostics: receives failures, recoveries and drop reports; called on the committer
    ///     thread, so it should return quickly.
    public init(
        store: EventStore, policy: FlushPolicy = FlushPolicy(), clock: any Clock<Duration> = ContinuousClock(),
        diagnostics: @escaping @Sendable (RecorderDiagnostic) -> Void = { _ in }
    ) {
        let core = RecorderCore(store: store, policy: policy, diagnostics: diagnostics)
        self.core = core
        let thread = Thread { core.runCommitter() }
        thread.name = "PaywallStore.Recorder"
        thread.start()
        let interval = policy.interval
        timer = Task.detached {
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                core.tick()
            }
        }
    }

    /// Opens (creating and migrating) the store at `path` and starts a recorder on it.
    ///
    /// - Throws: `StorageError` from opening the store (`.corrupt`, `.readOnly`, `.schemaTooNew`, …).
    public convenience init(
        path: String, options: OpenOptions = .default, now: Now, policy: FlushPolicy = FlushPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        diagnostics: @escaping @Sendable (RecorderDiagnostic) -> Void = { _ in }
    ) throws {
        self.init(
            store: try EventStore(path: path, options: options, now: now), policy: policy, clock: clock,
            diagnostics: diagnostics)
    }

    deinit {
        timer.cancel()
        core.requestShutdown()
    }

    /// The store written to.
    public var store: EventStore { core.store }

    /// Accepts one event: appends it to the in-memory buffer, or, at the bound or after
    /// ``close()``, drops it and counts the drop. Never throws, never waits for disk.
    public func record(_ event: EventRecord) {
        core.record(event)
    }

    /// Returns once every event recorded before the call is committed, with the WAL synced
    /// (`synchronous = FULL` for that commit): durable across a crash or a power loss.
    ///
    /// - Throws: `StorageError` when the commit failed; the events stay held (within the bound)
    ///   and are retried on the next interval or flush.
    public func flush() async throws {
        try await core.waitForCommit(closing: false)
    }

    /// Stops accepting events, commits what is held, persists the drop count and stops the
    /// committer. Later `record` calls are dropped and counted.
    ///
    /// - Throws: `StorageError` when the final commit failed (those events are lost, reported
    ///   as ``RecorderDiagnostic/lostOnClose(_:events:)``).
    public func close() async throws {
        timer.cancel()
        try await core.waitForCommit(closing: true)
    }

    /// Opts the install out (`true`) or back in: while opted out, ``record(_:)`` keeps nothing and
    /// counts the call in ``optedOutCount`` (not as a drop). Events recorded before stay buffered and
    /// are committed as usual (``PaywallAnalytics``' `optOut()` then deletes what was not sent).
    public func setOptedOut(_ optedOut: Bool) {
        core.state.withLock { $0.optedOut = optedOut }
    }

    /// `record` calls made while opted out since the recorder started (nothing of them was kept).
    public var optedOutCount: Int { core.state.withLock { $0.optedOutTotal } }

    /// Events dropped so far at the bound or after close (also persisted in `drops`).
    public var droppedCount: Int { core.state.withLock { $0.droppedTotal } }

    /// Events in memory, not yet committed.
    public var heldCount: Int { core.state.withLock { $0.held } }

    /// Of ``heldCount``, the events the committer has taken for the transaction it is writing (or
    /// retrying); the rest wait in the buffer for the next one.
    package var committingCount: Int { core.state.withLock { $0.inflight } }

    /// Events accepted so far (recorded and not dropped).
    public var acceptedCount: Int { Int(core.state.withLock { $0.accepted }) }

    /// Accepted events committed so far (duplicates of stored ids included: they are settled).
    public var committedCount: Int { Int(core.state.withLock { $0.committed }) }
}
