import Foundation
import PaywallCore
import PaywallLock
import PaywallTestSupport
import Testing

@testable import PaywallStore

/// A read that fails in the middle of an NDJSON import (a real socket whose peer resets it, so
/// `read` returns `ECONNRESET` after the lines before it arrived): every complete line read before
/// the failure is stored, the unfinished line is neither stored nor quarantined, and the error
/// says what failed and to retry (a retry skips what is stored as duplicates).
struct ImportReadErrorTests {
    let directory = TemporaryDirectory(prefix: "import-read-error")

    @Test func aReadErrorMidFileStoresEveryCompleteLineReadBeforeIt() throws {
        // Given 1,050 events and the start of one more line written into a stream socket the
        // import reads from: batches of 100, 300 events per transaction, so the failure comes
        // inside an open transaction, with 50 lines that make no whole batch
        let events = (0..<1_050).map { Fixtures.event($0) }
        let text = events.map(NDJSONLine.encode).joined(separator: "\n") + "\n{\"id\":\"unfinished"
        let stream = try ResettableStream()
        stream.readerClosesItsEnd()
        let store = try EventStore(path: directory.path("plain.sqlite"), now: .system)
        let importer = Importer(
            store: store, options: ImportOptions(batchSize: 100, transactionEvents: 300))
        let outcome = Lock<Result<ImportResult, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let descriptor = stream.readingEnd
        let thread = Thread {
            let result = Result {
                try importer.importNDJSON(
                    descriptor: descriptor, alreadyRead: [], path: "socket", progress: { _ in })
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.start()
        // When the peer resets the socket after those bytes (it closes with a byte it never read,
        // so the read after them fails with ECONNRESET)
        defer { stream.reset() }
        try stream.send(Array(text.utf8))
        stream.reset()
        // (the bound only keeps a broken import from hanging the suite; it ends in milliseconds)
        #expect(finished.wait(timeout: .now() + 600) == .success, "the import did not end after the read error")
        // Then the import reports the failed read, what it was and to retry
        let result = try #require(outcome.withLock { $0 })
        guard case .failure(let error) = result else {
            Issue.record("the import succeeded after a failed read: \(result)")
            return
        }
        let failure = try #require(error as? ImportError, "\(error)")
        #expect(failure.kind == .unreadable)
        #expect(failure.description.contains("reading failed (Connection reset by peer)"), "\(failure)")
        #expect(failure.description.contains("retry"))
        // And every complete line read before it is stored, in file order, and nothing else
        let snapshot = try StoreSnapshot(store.connection)
        #expect(snapshot.events.count == 1_050, "complete lines read before the failure were lost")
        #expect(snapshot.events.map(\.id) == Array(events.map(\.id.uuidString).prefix(snapshot.events.count)))
        #expect(snapshot.events.map(\.seq) == (1...Int64(snapshot.events.count)).map { $0 })
        #expect(snapshot.quarantine.isEmpty, "the unfinished line is not a bad line")
    }
}
