import PaywallSQLite

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
        let keysChannel = BoundedChannel<Result<ReportKeys, any Error>>(capacity: 1)
        let (from, through, chunkSize) = (self.from, self.through, self.chunkSize)
        let reader = try BackgroundReader<PresentationBatch>(
            path: path, capacity: 1, name: "PaywallReports.Rollup.reader"
        ) {
            connection, send in
            try connection.withDatabase { db in
                var keys = ReportKeys.deferred()
                var texts = TextTable()
                var after = from
                let loadedKeys = {
                    guard let keys = keysChannel.receive() else { throw CancellationError() }
                    return try keys.get()
                }
                while after < through {
                    let end = min(through, after + chunkSize)
                    let batch = try PresentationBatch.read(
                        db, after: after, through: end, keys: &keys, texts: &texts,
                        loadedKeys: loadedKeys)
                    guard send(batch) else { return }
                    after = end
                }
            }
        }
        defer {
            keysChannel.finish()  // never leave the reader waiting for keys
            reader.stop()
        }
        let keys = Result { try loadKeys() }
        _ = keysChannel.send(keys)
        _ = try keys.get()
        while let next = try reader.next() {
            try body(next)
        }
    }
}
