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
/// With a WAL limit (``init(connection:walLimitBytes:)``, the collector's), the WAL also starts over
/// under continuous writes and after a long reader, so its file stays small:
/// - a passive checkpoint never finds the WAL fully copied while commits keep coming, and SQLite
///   starts the WAL over only at a write that finds it fully copied (and no reader in it); so a
///   commit that leaves ``restartPages`` or more, when the thread has already copied all but at most
///   ``thresholdPages`` of them, copies that rest inline (a few pages: cheap), and the next commit
///   starts the WAL over from its first frame;
/// - `journal_size_limit` is set to ``restartPages`` worth of bytes, so the commit that starts the
///   WAL over also cuts a file that grew past that back to it;
/// - a reader (a long report) pins the frames it may still read: no checkpoint copies past them and
///   the WAL grows while it reads. The writer then stops checkpointing inline (it would only wait
///   for nothing), the thread retries every ``pinnedRetrySeconds`` and, once the reader is gone, copies the
///   backlog, and the rules above bring the file back to its bound;
/// - when no commit came for ``idleSeconds``, the thread truncates the WAL to zero bytes
///   (`TRUNCATE` checkpoint, never waiting for a lock: a busy writer or reader just means later).
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
    /// With a WAL limit: WAL pages after a commit from which the writer finishes a nearly complete
    /// checkpoint inline so the WAL starts over (`nil`: the WAL starts over only when it happens to).
    public let restartPages: Int?
    /// With a WAL limit: how long the thread waits before trying again a checkpoint that a reader
    /// stopped short.
    public static let pinnedRetrySeconds = 0.05
    /// With a WAL limit: seconds without a commit after which the thread truncates the WAL file.
    public static let idleSeconds = 0.5

    private let writer: Connection
    private let state: CheckpointerState
    private let done = DispatchSemaphore(value: 0)

    /// Opens a second connection to `connection`'s file (never creating it) and starts the thread;
    /// from now on `connection`'s commits hand checkpoints to it.
    ///
    /// - Throws: ``StorageError`` when the second connection cannot be opened.
    public convenience init(
        connection: Connection, thresholdPages: Int = defaultThresholdPages,
        catchUpPages: Int = defaultCatchUpPages
    ) throws {
        try self.init(
            connection: connection, thresholdPages: thresholdPages, catchUpPages: catchUpPages, restartPages: nil)
    }

    /// A checkpointer that keeps the WAL file at about `walLimitBytes` or less while no reader pins
    /// it (one commit larger than half the limit can still pass it once), and brings it back there
    /// after a reader: the WAL starts over from a quarter of the limit (``restartPages``), the writer
    /// catches up inline at half of it (``catchUpPages``), the thread is woken every eighth (at
    /// most SQLite's 1,000 pages), and a WAL that grew past a quarter is cut back to it.
    ///
    /// - Parameter walLimitBytes: at least 1 MiB (smaller values are raised to it).
    /// - Throws: ``StorageError`` when the second connection cannot be opened.
    public convenience init(connection: Connection, walLimitBytes: Int) throws {
        let pageSize = Int(try connection.scalar("PRAGMA page_size")?.int64 ?? 4_096)
        let frame = pageSize + 24
        let limit = max(walLimitBytes, 1 << 20)
        let restart = max(16, limit / 4 / frame)
        let threshold = max(8, min(Self.defaultThresholdPages, limit / 8 / frame))
        try self.init(
            connection: connection, thresholdPages: threshold, catchUpPages: max(restart, limit / 2 / frame),
            restartPages: restart)
        try connection.execute("PRAGMA journal_size_limit = \(restart * frame)")
    }

    private init(connection: Connection, thresholdPages: Int, catchUpPages: Int, restartPages: Int?) throws {
        precondition(thresholdPages > 0 && catchUpPages >= thresholdPages, "0 < threshold ≤ catch-up")
        self.writer = connection
        self.thresholdPages = thresholdPages
        self.catchUpPages = catchUpPages
        self.restartPages = restartPages
        let state = CheckpointerState(
            thresholdPages: thresholdPages, catchUpPages: catchUpPages, restartPages: restartPages)
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
            while let work = state.waitForWork() {
                var log: Int32 = -1
                var copied: Int32 = -1
                let code = owned.connection.map { connection in
                    connection.withDatabase { db in
                        guard work.truncate else {
                            return sqlite3_wal_checkpoint_v2(
                                db.handle, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
                        }
                        // Never wait: a writer or a reader in the WAL means "later", not a stalled writer.
                        BusyWait.install(db.handle, nil)
                        defer { BusyWait.install(db.handle, connection.busyWait) }
                        return sqlite3_wal_checkpoint_v2(db.handle, "main", SQLITE_CHECKPOINT_TRUNCATE, &log, &copied)
                    }
                }
                let outcome = CheckpointerState.Outcome(
                    succeeded: code == SQLITE_OK, log: Int(log), copied: Int(copied), generation: work.generation,
                    truncate: work.truncate)
                state.finished(background: true, outcome)
            }
            owned.close()
        }
        thread.name = "BackgroundCheckpointer"
        thread.start()
    }

    /// Checkpoints the thread has completed so far.
    public var backgroundCheckpoints: Int { state.counts().background }
    /// Checkpoints the writer ran inline because the WAL reached ``catchUpPages`` (or, with a WAL
    /// limit, to finish a checkpoint so the WAL starts over).
    public var inlineCheckpoints: Int { state.counts().inline }
    /// With a WAL limit: times the thread truncated the WAL file after an idle second.
    public var truncations: Int { state.counts().truncations }

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
    let restartPages: Int?
    private let lock = NSCondition()
    /// A commit asked the thread for a checkpoint it has not started yet.
    private var requested = false
    /// A checkpoint (the thread's or an inline one) is running.
    private var running = false
    private var stopping = false
    private var background = 0
    private var inline = 0
    private var truncations = 0
    // With a WAL limit only:
    /// Frames in the WAL after the last commit.
    private var frames = 0
    /// Frames of the current WAL known to be copied into the main file.
    private var copied = 0
    /// Counts the times the WAL started over (or was truncated): a checkpoint's figures taken in an
    /// earlier WAL say nothing about this one.
    private var generation = 0
    /// The writer's last inline checkpoint stopped at `pinnedAt` frames: a reader holds the rest.
    private var pinnedAt: Int?
    /// When the thread may retry a checkpoint a reader stopped short.
    private var retryAfter: UInt64 = 0
    /// When the last commit was (uptime nanoseconds).
    private var lastCommit: UInt64 = 0
    /// The WAL has had a commit since it was last truncated.
    private var owed = false
    private var nextTruncate: UInt64 = 0

    /// A checkpoint's figures (`log` and `copied` frames are -1 when SQLite gave none).
    struct Outcome {
        var succeeded: Bool
        var log = -1
        var copied = -1
        var generation = 0
        var truncate = false
    }

    /// What the thread is to do: a passive checkpoint, or a truncating one.
    struct Work {
        var generation: Int
        var truncate: Bool
    }

    init(thresholdPages: Int, catchUpPages: Int, restartPages: Int? = nil) {
        self.thresholdPages = thresholdPages
        self.catchUpPages = catchUpPages
        self.restartPages = restartPages
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Called by the hook after a commit that left `pages` in the WAL: a generation when the writer
    /// must checkpoint inline (then the caller owns the checkpoint until
    /// ``finished(background:_:)``); otherwise wakes the thread when there is enough to copy.
    func committed(pages: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if stopping { return nil }
        guard let restartPages else {
            if pages >= catchUpPages {
                while running { lock.wait() }
                running = true
                return generation
            }
            if pages >= thresholdPages && !requested {
                requested = true
                lock.broadcast()
            }
            return nil
        }
        lastCommit = Self.now
        owed = true
        if pages < frames {  // the WAL started over
            generation += 1
            copied = 0
            pinnedAt = nil
        }
        frames = pages
        if pinnedAt == nil {
            if pages >= catchUpPages {
                while running { lock.wait() }
                running = true
                return generation
            }
            if pages >= restartPages, !running, pages - copied <= thresholdPages {
                running = true
                return generation
            }
        }
        if pages - copied >= thresholdPages && !requested {
            requested = true
            lock.broadcast()
        }
        return nil
    }

    /// Waits for a request (with a WAL limit, also for an idle WAL to truncate) and takes the
    /// checkpoint (``finished(background:_:)`` ends it); nil once stopping.
    func waitForWork() -> Work? {
        lock.lock()
        defer { lock.unlock() }
        while !stopping {
            let now = Self.now
            if requested && !running && now >= retryAfter {
                requested = false
                running = true
                return Work(generation: generation, truncate: false)
            }
            if restartPages != nil, owed, !running, now >= nextTruncate,
                now - lastCommit >= UInt64(BackgroundCheckpointer.idleSeconds * 1e9)
            {
                nextTruncate = now + UInt64(BackgroundCheckpointer.idleSeconds * 1e9)
                running = true
                return Work(generation: generation, truncate: true)
            }
            if restartPages == nil {
                lock.wait()
            } else {
                _ = lock.wait(until: Date().addingTimeInterval(0.05))
            }
        }
        return nil
    }

    /// Ends the checkpoint taken by ``waitForWork()`` or ``committed(pages:)``.
    func finished(background isBackground: Bool, _ outcome: Outcome) {
        lock.lock()
        defer { lock.unlock() }
        running = false
        defer { lock.broadcast() }
        if outcome.succeeded {
            if outcome.truncate {
                truncations += 1
            } else if isBackground {
                background += 1
            } else {
                inline += 1
            }
        }
        guard restartPages != nil, outcome.generation == generation, outcome.log >= 0, outcome.copied >= 0 else {
            return
        }
        if outcome.truncate && outcome.succeeded && outcome.log == 0 {
            // The WAL file is empty: the next commit writes from its first frame.
            generation += 1
            frames = 0
            copied = 0
            pinnedAt = nil
            owed = false
            return
        }
        copied = max(copied, outcome.copied)
        let short = outcome.copied < outcome.log
        if !isBackground {
            // The writer was the only one writing: a checkpoint short of the log met a reader.
            pinnedAt = short ? outcome.copied : nil
        } else if let pinned = pinnedAt, outcome.copied > pinned {
            pinnedAt = nil  // the reader moved on: the writer may finish checkpoints again
        }
        if isBackground && short {
            retryAfter = Self.now + UInt64(BackgroundCheckpointer.pinnedRetrySeconds * 1e9)
            requested = true  // try again: more may be copyable once the reader moves on
        }
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

    func counts() -> (background: Int, inline: Int, truncations: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (background, inline, truncations)
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
                    if let generation = state.committed(pages: Int(pages)) {
                        var log: Int32 = -1
                        var copied: Int32 = -1
                        let code = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
                        state.finished(
                            background: false,
                            .init(
                                succeeded: code == SQLITE_OK, log: Int(log), copied: Int(copied),
                                generation: generation))
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
