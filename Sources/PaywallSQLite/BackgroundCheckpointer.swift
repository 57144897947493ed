import CSQLite
import Dispatch
import Foundation

/// Copies a WAL store's committed pages into its main file on a thread of its own, so the writing
/// connection's commits do not wait for checkpoints.
///
/// SQLite's automatic checkpoint runs inside the commit that leaves 1,000 or more pages in the WAL:
/// that commit reads the WAL, writes the main file and syncs both before it returns. Measured on
/// 1M time-ordered events, checkpoints were about a third of `import`'s wall time (8.4 s with them,
/// 5.1 s with none), and they made the collector's slowest group commits.
///
/// While a checkpointer runs, the writer's automatic checkpoint is replaced by a WAL hook:
/// - a commit that leaves ``thresholdPages`` or more in the WAL wakes the thread, which runs a
///   passive checkpoint on a connection of its own (it never blocks the writer or a reader);
/// - a commit that leaves ``catchUpPages`` or more waits for a background checkpoint in progress,
///   then runs a passive checkpoint inline, as SQLite would: under continuous writes the thread
///   may never find the WAL fully copied (which is when SQLite starts it over), and the WAL must
///   stay bounded. Passive, like SQLite's own: it never waits for readers (a long report).
///
/// ``stop()`` waits for a checkpoint in progress and puts SQLite's automatic checkpoint back.
/// Durability does not change: a commit is in the WAL, synced as the connection's `synchronous`
/// says, before it returns; a checkpoint only moves pages that are already safe.
///
/// ```swift
/// let checkpointer = try BackgroundCheckpointer(connection: store.connection)
/// defer { checkpointer.stop() }
/// for batch in batches { try write(batch) }
/// ```
public final class BackgroundCheckpointer: Sendable {
    /// WAL pages after a commit that wake the thread: SQLite's own automatic threshold.
    public static let defaultThresholdPages = 1_000
    /// WAL pages after a commit that make the writer checkpoint itself (256 MiB of 4 KiB pages).
    public static let defaultCatchUpPages = 65_536

    /// WAL pages after a commit that wake the thread.
    public let thresholdPages: Int
    /// WAL pages after a commit that make the writer checkpoint inline.
    public let catchUpPages: Int

    private let writer: Connection
    private let state: CheckpointerState
    private let done = DispatchSemaphore(value: 0)

    /// Opens a second connection to `connection`'s file (never creating it) and starts the thread;
    /// from now on `connection`'s commits hand checkpoints to it.
    ///
    /// - Throws: ``StorageError`` when the second connection cannot be opened.
    public init(
        connection: Connection, thresholdPages: Int = defaultThresholdPages,
        catchUpPages: Int = defaultCatchUpPages
    ) throws {
        precondition(thresholdPages > 0 && catchUpPages >= thresholdPages, "0 < threshold ≤ catch-up")
        self.writer = connection
        self.thresholdPages = thresholdPages
        self.catchUpPages = catchUpPages
        let state = CheckpointerState(thresholdPages: thresholdPages, catchUpPages: catchUpPages)
        self.state = state
        // Without a WAL (an in-memory database, a rollback journal) there is nothing to copy.
        let mode = try connection.scalar("PRAGMA journal_mode")?.string?.lowercased()
        guard mode == "wal" else {
            _ = state.requestStop()
            done.signal()
            return
        }
        let checkpointing: Connection
        do {
            checkpointing = try Connection(path: connection.path, options: OpenOptions(create: false, wal: false))
        } catch {
            _ = state.requestStop()
            done.signal()
            throw error
        }
        connection.installWALHook(state)
        // The thread owns its connection and closes it before it signals `done`: were the closure to
        // capture it, it would close whenever the Thread object goes, after stop() returned.
        let owned = OwnedConnection(checkpointing)
        let thread = Thread { [done] in
            defer { done.signal() }
            while state.waitForWork() {
                let code = owned.connection?.withDatabase { db in
                    sqlite3_wal_checkpoint_v2(db.handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                state.finished(background: true, succeeded: code == SQLITE_OK)
            }
            owned.close()
        }
        thread.name = "BackgroundCheckpointer"
        thread.start()
    }

    /// Checkpoints the thread has completed so far.
    public var backgroundCheckpoints: Int { state.counts().background }
    /// Checkpoints the writer ran inline because the WAL reached ``catchUpPages``.
    public var inlineCheckpoints: Int { state.counts().inline }

    /// Ends the thread (after a checkpoint in progress), which closes its connection before this
    /// returns, and gives the writer back SQLite's automatic checkpoint. Stopping again is harmless.
    public func stop() {
        guard state.requestStop() else { return }
        done.wait()
        writer.restoreAutomaticCheckpoint()
    }

    /// Whether the thread runs (false for a database without a WAL, or once stopped).
    public var isRunning: Bool { !state.isStopping }

    deinit { stop() }
}

/// The checkpointing thread's connection, which only that thread uses once started and which it
/// closes (drops the last reference to) before it ends.
// @unchecked Sendable: after init, `connection` is read and cleared by the checkpointing thread only.
private final class OwnedConnection: @unchecked Sendable {
    private(set) var connection: Connection?

    init(_ connection: Connection) { self.connection = connection }

    /// Closes the connection (its deinit closes the SQLite handle).
    func close() { connection = nil }
}

/// What the WAL hook (on the writer's thread) and the checkpointing thread share, under one lock.
// @unchecked Sendable: every stored property is guarded by `lock`.
final class CheckpointerState: @unchecked Sendable {
    let thresholdPages: Int
    let catchUpPages: Int
    private let lock = NSCondition()
    /// A commit asked the thread for a checkpoint it has not started yet.
    private var requested = false
    /// A checkpoint (the thread's or an inline one) is running.
    private var running = false
    private var stopping = false
    private var background = 0
    private var inline = 0

    init(thresholdPages: Int, catchUpPages: Int) {
        self.thresholdPages = thresholdPages
        self.catchUpPages = catchUpPages
    }

    /// Called by the hook after a commit that left `pages` in the WAL: true when the writer must
    /// checkpoint inline (then the caller owns the checkpoint until ``finished(background:succeeded:)``);
    /// otherwise wakes the thread when there is enough to copy.
    func committed(pages: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopping { return false }
        if pages >= catchUpPages {
            while running { lock.wait() }
            running = true
            return true
        }
        if pages >= thresholdPages && !requested {
            requested = true
            lock.broadcast()
        }
        return false
    }

    /// Waits for a request and takes the checkpoint (``finished(background:succeeded:)`` ends it);
    /// false once stopping.
    func waitForWork() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while (!requested || running) && !stopping { lock.wait() }
        if stopping { return false }
        requested = false
        running = true
        return true
    }

    /// Ends the checkpoint taken by ``waitForWork()`` or ``committed(pages:)``.
    func finished(background isBackground: Bool, succeeded: Bool) {
        lock.lock()
        defer { lock.unlock() }
        running = false
        if succeeded {
            if isBackground { background += 1 } else { inline += 1 }
        }
        lock.broadcast()
    }

    /// Marks the state stopping; false when it already was.
    func requestStop() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopping { return false }
        stopping = true
        lock.broadcast()
        return true
    }

    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    func counts() -> (background: Int, inline: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (background, inline)
    }
}

extension Connection {
    /// Replaces the automatic checkpoint with `state`'s hook. The hook runs on the committing
    /// thread, inside ``withDatabase(_:)``, after the commit; SQLite allows a checkpoint there
    /// (its own automatic checkpoint is such a hook).
    func installWALHook(_ state: CheckpointerState) {
        withDatabase { db in
            let context = Unmanaged.passRetained(state).toOpaque()
            db.walHookContext.map { Unmanaged<CheckpointerState>.fromOpaque($0).release() }
            db.walHookContext = context
            sqlite3_wal_hook(
                db.handle,
                { context, handle, name, pages in
                    guard let context else { return SQLITE_OK }
                    let state = Unmanaged<CheckpointerState>.fromOpaque(context).takeUnretainedValue()
                    if state.committed(pages: Int(pages)) {
                        let code = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                        state.finished(background: false, succeeded: code == SQLITE_OK)
                    }
                    return SQLITE_OK
                }, context)
        }
    }

    /// Puts SQLite's automatic checkpoint (1,000 pages) back, dropping a checkpointer's hook.
    func restoreAutomaticCheckpoint() {
        withDatabase { db in
            sqlite3_wal_autocheckpoint(db.handle, Int32(BackgroundCheckpointer.defaultThresholdPages))
            db.walHookContext.map { Unmanaged<CheckpointerState>.fromOpaque($0).release() }
            db.walHookContext = nil
        }
    }
}
