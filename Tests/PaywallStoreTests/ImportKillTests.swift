import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// An import killed with SIGKILL mid-way and run again leaves exactly what one import leaves: the
/// same rows, rowids in file order, outbox and quarantine. The import writes each batch as it
/// arrives inside the open transaction, with the WAL checkpointed on a thread of its own, so kills
/// also land during background checkpoints, and its first transaction into the empty store writes
/// without the id index, so kills land there too (and must leave the empty store with its index).
struct ImportKillTests {
    @Test func aKilledImportRunAgainEqualsOnePlainImport() async throws {
        // Given a file of random ids with repeats, conflicts and bad lines, and its import in one go
        let directory = TemporaryDirectory()
        var generator = SeededGenerator(seed: 42)
        let entries = ImportFastPathFixture.entries(count: 80_000, ids: .random, using: &generator)
        let file = directory.path("random.ndjson")
        try (entries.map(\.text).joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let reference = try EventStore(path: directory.path("plain.sqlite"), now: .system)
        _ = try Importer(store: reference, options: ImportOptions()).importFiles([file])
        let expected = try StoreSnapshot(reference.connection)
        // When an import in a child process, 5,000 events per transaction (the first 20,000 into the
        // empty store in one transaction without the id index), is killed at random moments, then
        // run to the end
        let path = directory.path("killed.sqlite")
        var kills = 0
        for round in 0..<4 {
            let child = try ChildProcess(
                ["import", path, file, "5000", "20000"],
                errorsTo: directory.url.appendingPathComponent("err-\(round)"))
            let reading = Task { await child.readAll() }
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...1_200)))
            child.kill()
            await child.waitForExit()
            if await reading.value.isEmpty { kills += 1 }
            let store = try EventStore(path: path, now: .system)
            #expect(try store.connection.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(
                try store.connection.scalar(
                    "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                    [.text(Schema.eventsIDIndexName)])?.int64 == 1, "round \(round): the id index is there")
            let stored = try Fixtures.count(store.connection, "SELECT count(*) FROM events")
            #expect(
                try Fixtures.count(store.connection, "SELECT coalesce(max(seq), 0) FROM events") == stored,
                "round \(round): rowids 1…n, no gap")
        }
        let last = try ChildProcess(
            ["import", path, file, "5000", "20000"], errorsTo: directory.url.appendingPathComponent("err-last"))
        let output = String(decoding: await last.readAll(), as: UTF8.self)
        await last.waitForExit()
        #expect(output.hasPrefix("imported="), "\(output) \(last.stderrText)")
        // Then the store holds exactly what the plain import stored
        expected.expectEqual(
            try StoreSnapshot(try EventStore(path: path, now: .system).connection), "killed and resumed")
        #expect(kills >= 1, "no import was killed mid-way; the test proved nothing")
    }
}
