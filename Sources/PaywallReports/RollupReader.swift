import Dispatch
import Foundation
import PaywallSQLite
import Synchronization

/// Reads and folds the rollup's chunks on a second connection and thread, one chunk ahead of the
/// caller, who merges them (SQLite's writes and the Swift fold then use both cores). The reader
/// only reads (WAL lets it run next to the writer), assigns customer and placement keys in memory
/// and hands each chunk's new names over with it, so every chunk still commits whole or not at all.
struct RollupReader {
    let path: String
    let from: Int64
    let through: Int64
    let chunkSize: Int64

    /// Calls `body` with every chunk in rowid order on the calling thread; stops the reader and
    /// rethrows at the first error of either side.
    ///
    /// `loadKeys` runs on the calling thread while the reader reads the first chunk with
    /// provisional keys (``ReportKeys/deferred()``): loading every customer's key and reading a
    /// chunk take about as long, and the caller has nothing else to do until the first chunk.
    func forEach(loadKeys: () throws -> ReportKeys, _ body: (PresentationBatch) throws -> Void) throws {
        let reader = try Connection(path: path, options: OpenOptions(create: false, wal: false))
        let channel = BoundedChannel<Result<PresentationBatch, any Error>>(capacity: 1)
        let keysHandoff = KeysHandoff()
        let done = DispatchSemaphore(value: 0)
        let (from, through, chunkSize) = (self.from, self.through, self.chunkSize)
        let thread = Thread {
            defer { done.signal() }
            do {
                try reader.withDatabase { db in
                    var keys = ReportKeys.deferred(), texts = TextTable(), after = from
                    while after < through {
                        let end = min(through, after + chunkSize)
                        let batch = try PresentationBatch.read(db, after: after, through: end, keys: &keys, texts: &texts,
                                                               loadedKeys: { try keysHandoff.take() })
                        guard channel.send(.success(batch)) else { return }
                        after = end
                    }
                }
                channel.finish()
            } catch {
                _ = channel.send(.failure(error))
            }
        }
        thread.start()
        defer {
            keysHandoff.give(.failure(CancellationError()))   // never leave the reader waiting for keys
            channel.cancel()
            done.wait()
        }
        let keys = Result { try loadKeys() }
        keysHandoff.give(keys)
        _ = try keys.get()
        while let next = channel.receive() {
            try body(try next.get())
        }
    }
}

/// Hands the loaded key tables from the caller's thread to the reader, once.
final class KeysHandoff: Sendable {
    private enum State {
        case waiting, given(Result<ReportKeys, any Error>), taken
    }

    private let state = Mutex(State.waiting)
    private let ready = DispatchSemaphore(value: 0)

    /// Gives the tables (or the error that kept them from loading); later calls do nothing.
    func give(_ result: Result<ReportKeys, any Error>) {
        let first = state.withLock { state in
            guard case .waiting = state else { return false }
            state = .given(result)
            return true
        }
        if first { ready.signal() }
    }

    /// Waits for the tables and takes them (the only copy, so adding keys copies nothing);
    /// rethrows the loading error. Call it once.
    func take() throws -> ReportKeys {
        ready.wait()
        let result = state.withLock { state -> Result<ReportKeys, any Error>? in
            guard case .given(let result) = state else { return nil }
            state = .taken
            return result
        }
        guard let result else { preconditionFailure("KeysHandoff.take() called twice") }
        return try result.get()
    }
}
