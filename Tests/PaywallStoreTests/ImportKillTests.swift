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
/// Each kill follows a line the child prints (the store opened, a transaction committed), so the
/// test waits for the child's progress, never for time.
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
        // empty store in one transaction without the id index), is killed four times, each time right
        // after it says it opened the store or committed a transaction, then run to the end
        let path = directory.path("killed.sqlite")
        var kills = 0
        for round in 0..<4 {
            let storedBefore = try Fixtures.count(
                try EventStore(path: path, now: .system).connection, "SELECT count(*) FROM events")
            let child = try ChildProcess(
                ["import", path, file, "5000", "20000"],
                errorsTo: directory.url.appendingPathComponent("err-\(round)"))
            // Round 0 is killed once the store is open (before the first commit); each later round
            // once a transaction holding new events has committed (the stored ones come back as
            // duplicates first), or one transaction after that: at most 45,000 of the 80,000 events
            // are stored before the last kill, so every kill lands with transactions left to write.
            let extraCommits = round == 0 ? -1 : Int.random(in: 0...1)
            let read = await child.kill { lines in
                let newCommits = lines.filter { $0.hasPrefix("committed imported=") && !$0.hasSuffix("=0") }.count
                return newCommits - 1 >= extraCommits
            }
            let rest = String(decoding: await child.readAll(), as: UTF8.self)
            await child.waitForExit()
            #expect(read.first == "opened", "round \(round): \(read.prefix(3)) \(child.stderrText)")
            let committed = read.last { $0.hasPrefix("committed imported=") }
            let acknowledged = committed.map { Int($0.dropFirst("committed imported=".count)) ?? -1 } ?? 0
            let finished = (read + rest.split(separator: "\n").map(String.init)).contains { $0.hasPrefix("imported=") }
            if !finished { kills += 1 }
            let store = try EventStore(path: path, now: .system)
            #expect(try store.connection.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(
                try store.connection.scalar(
                    "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                    [.text(Schema.eventsIDIndexName)])?.int64 == 1, "round \(round): the id index is there")
            let stored = try Fixtures.count(store.connection, "SELECT count(*) FROM events")
            #expect(
                stored >= storedBefore + acknowledged,
                "round \(round): the \(acknowledged) events of the committed transactions are kept")
            #expect(
                try Fixtures.count(store.connection, "SELECT coalesce(max(seq), 0) FROM events") == stored,
                "round \(round): rowids 1…n, no gap")
        }
        let last = try ChildProcess(
            ["import", path, file, "5000", "20000"], errorsTo: directory.url.appendingPathComponent("err-last"))
        let output = String(decoding: await last.readAll(), as: UTF8.self)
        await last.waitForExit()
        let counts = output.split(separator: "\n").last.map(String.init) ?? ""
        #expect(counts.hasPrefix("imported="), "\(output) \(last.stderrText)")
        // Then the store holds exactly what the plain import stored
        expected.expectEqual(
            try StoreSnapshot(try EventStore(path: path, now: .system).connection), "killed and resumed")
        #expect(kills == 4, "an import finished before its kill: \(kills) of 4 killed mid-way")
    }
}
