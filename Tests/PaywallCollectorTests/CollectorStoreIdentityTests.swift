import Foundation
import PaywallCollector
import PaywallTestSupport
import Testing

/// One collector per store, and the file it syncs is the file it writes: a second `serve` on the
/// same store exits 75 naming the first; a store deleted and created anew at the same path (by a
/// careless operator) makes the running collector answer 503, never 200 for events written into
/// the unlinked file. The built `serve` on 127.0.0.1.
@Suite(.serialized)
struct CollectorStoreIdentityTests {
    @Test func aSecondCollectorOnTheSameStoreExits75NamingTheFirst() throws {
        let harness = try CollectorHarness()
        let second = try harness.cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", harness.db])
        #expect(second.status == 75, "\(second.stderr)")
        #expect(
            second.stderr.contains(
                "another collector already serves this store (pid \(harness.server.process.processIdentifier),"),
            "\(second.stderr)")
        #expect(second.stderr.contains("stop it first"))
        // The first one still serves; once it is killed, a new one starts on the store
        let batch = EventLines.batch(pairs: 1)
        #expect(try harness.post(EventLines.body(batch.lines)).status == 200)
        harness.server.stop(SIGKILL)
        try harness.restart()
        #expect(try harness.storedIDs() == Set(batch.ids))
        #expect(try harness.get("/healthz").status == 200)
    }

    @Test func aReportCanTellThatACollectorServesItsStore() throws {
        // Given a collector serving a store
        let harness = try CollectorHarness()
        // Then its lock says so for that store only, without taking it
        #expect(CollectorLock.isHeld(databasePath: harness.db))
        #expect(CollectorLock.isHeld(databasePath: harness.db))
        #expect(!CollectorLock.isHeld(databasePath: harness.folder.path("another.sqlite")))
        #expect(try harness.post(EventLines.body(EventLines.batch(pairs: 1).lines)).status == 200)
        // and once the collector has stopped, no longer
        #expect(harness.server.stop().status == 0)
        #expect(!CollectorLock.isHeld(databasePath: harness.db))
    }

    @Test func aStoreReplacedUnderTheCollectorIsNeverAcknowledged() throws {
        let harness = try CollectorHarness()
        let first = EventLines.batch(pairs: 1)
        #expect(try harness.post(EventLines.body(first.lines)).status == 200)
        // When the store's files are deleted and another process creates a new store at the path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: harness.db + suffix) }
        let made = try harness.cli.runBlocking(["keys", "add", "other", "--db", harness.db])
        #expect(made.status == 0, "\(made.stderr)")
        // Then no upload to the running collector is answered 200, and its health says so
        for _ in 0..<5 {
            let reply = try harness.post(EventLines.body(EventLines.batch(pairs: 1).lines))
            #expect(reply.status == 503, "\(reply.status) \(reply.text)")
            #expect(reply.text.contains("could not flush its log"), "\(reply.text)")
        }
        let health = try harness.get("/healthz")
        #expect(health.status == 503 && health.text.contains("could not be flushed"), "\(health.text)")
        // And another collector cannot start on the path while the first runs
        let second = try harness.cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", harness.db])
        #expect(second.status == 75, "\(second.stderr)")
    }
}
