import Dispatch
import Foundation

/// The package's one reader on a thread of its own — usually on a second connection — handing
/// what it reads to the caller over a ``BoundedChannel``: the caller works on each item while the
/// reader reads the next ones, so reading and the caller's work each get a core.
///
/// The reader's error reaches the caller in order, from ``next()``, after the items sent before
/// it. The caller ends with ``stop(waiting:)`` (after the last item, or early, which makes the
/// reader's next send return `false`).
///
/// ```swift
/// let reader = try BackgroundReader<[Row]>(path: path, capacity: 2, name: "Rollup.reader") { connection, send in
///     try connection.withDatabase { db in
///         for chunk in chunks where !send(try read(db, chunk)) { return }   // false: the caller stopped
///     }
/// }
/// defer { reader.stop() }
/// while let rows = try reader.next() { try merge(rows) }
/// ```
public final class BackgroundReader<Item: Sendable>: Sendable {
    private let channel: BoundedChannel<Result<Item, any Error>>
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`; `body` hands items over with its `send`
    /// argument, which waits while `capacity` items are queued and returns `false` once the caller
    /// has stopped (return then). A thrown error is handed over after the items sent before it.
    public init(
        capacity: Int, name: String,
        _ body: @escaping @Sendable (_ send: (Item) -> Bool) throws -> Void
    ) {
        let channel = BoundedChannel<Result<Item, any Error>>(capacity: capacity)
        self.channel = channel
        let thread = Thread { [done] in
            defer {
                channel.finish()
                done.signal()
            }
            do {
                try body { channel.send(.success($0)) }
            } catch {
                _ = channel.send(.failure(error))
            }
        }
        thread.name = name
        thread.start()
    }

    /// Opens a second connection to the database at `path` (never creating it, and leaving its
    /// journal mode as it is) on the calling thread, then reads from it on a new thread, as
    /// ``init(capacity:name:_:)``.
    ///
    /// - Throws: ``StorageError`` when the second connection cannot be opened.
    public convenience init(
        path: String, capacity: Int, name: String,
        _ body: @escaping @Sendable (_ connection: Connection, _ send: (Item) -> Bool) throws -> Void
    ) throws {
        let connection = try Connection(path: path, options: OpenOptions(create: false, wal: false))
        self.init(capacity: capacity, name: name) { send in try body(connection, send) }
    }

    /// The next item, waiting for it; `nil` once the reader has ended.
    ///
    /// - Throws: the reader's error, in its place after the items sent before it.
    public func next() throws -> Item? {
        try channel.receive()?.get()
    }

    /// Stops the reader: its next send returns `false`. With `waiting` (the default), returns once
    /// its thread has ended, so nothing it uses (a descriptor, the connection) is in use any more.
    /// Stopping again is harmless.
    public func stop(waiting: Bool = true) {
        channel.cancel()
        guard waiting else { return }
        done.wait()
        done.signal()  // a later stop returns at once too
    }
}
