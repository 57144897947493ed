import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `serve --max-wal`: under sustained uploads the store's WAL file stays within the limit; a
/// report (a reader holding one snapshot) lets it grow only while it reads, and once the report
/// has ended the file comes back within the limit while uploads go on; an idle collector's WAL is
/// truncated. The built `serve`, real clients on 127.0.0.1, the built `report`.
@Suite(.serialized)
struct CollectorWALTests {
    /// 4 MiB: the WAL starts over from a quarter of it and the writer catches up at half, which leaves
    /// room for the commit that crosses half and the one after (four clients' 100-event requests
    /// in one group commit touch about a page per event in the random-id index: over 1 MiB of WAL
    /// at worst). At 2 MiB that headroom was too small on a loaded machine (2,121,832 bytes seen).
    static let limit = 4 << 20

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Samples `path`'s size every 10 ms until `done` holds, given how many times the file was seen
    /// to shrink so far (the WAL starting over after a checkpoint; a sample can miss one on a busy
    /// machine, so a test waits for the count instead of expecting it by some request); false when
    /// `deadline` seconds passed first: a hang guard, not a measure. Returns the largest size seen
    /// and that count. The sampling runs on a
    /// thread of its own: it never holds a thread of the concurrency pool the other tests need, and
    /// it never waits for one either (a task's sleep can outlast the whole load on a busy pool, and
    /// then the samples miss the load they are meant to watch).
    static func watch(
        _ path: String, deadline: TimeInterval = 300, until done: @escaping @Sendable (_ restarts: Int) -> Bool
    ) async -> (Bool, Int, restarts: Int) {
        await withCheckedContinuation { continuation in
            let sampler = Thread {
                let end = Date().addingTimeInterval(deadline)
                var largest = 0
                var last = 0
                var restarts = 0
                while !done(restarts) {
                    let now = size(path)
                    if now < last { restarts += 1 }
                    (last, largest) = (now, max(largest, now))
                    if Date() > end { return continuation.resume(returning: (false, largest, restarts)) }
                    usleep(10_000)
                }
                continuation.resume(returning: (true, max(largest, size(path)), restarts))
            }
            sampler.start()
        }
    }

    @Test func theWALStaysWithinMaxWALUnderLoadAndComesBackAfterAReport() async throws {
        // Given a collector with a 4 MiB WAL limit and four clients posting 100 fresh events per request
        let harness = try CollectorHarness(arguments: ["--max-wal", "4MiB"])
        let wal = harness.db + "-wal"
        let load = LoadClients(clients: 4, key: harness.key, pairsPerBatch: 50)
        load.setPort(harness.port)
        // When at least 120 requests (12,000 events) are answered and the WAL was seen to start over
        // at least once. Alone, 120 requests make it start over about a dozen times, but the file
        // shrinks only when a restart finds it above its truncation size, so on a loaded machine the
        // sampler sees few of them: waiting for three once took 449 s of a CI run. One restart seen
        // proves the checkpoints run under load; the limit below is what this test is about.
        let (loaded, underLoad, restarts) = await Self.watch(wal) { restarts in
            load.okReplies >= 120 && restarts >= 1
        }
        #expect(loaded, "\(load.okReplies) requests answered 200, the WAL seen to start over \(restarts) times")
        // Then the load was enough to fill the WAL up to its checkpoint, and it started over
        #expect(restarts >= 1, "the WAL never started over")
        // Then the WAL file stayed within the limit
        #expect(underLoad > 0 && underLoad <= Self.limit, "WAL reached \(underLoad) bytes under load alone")

        // When a report runs and a reader holds one snapshot (as a long report does) while uploads go on
        let reader = try Connection(path: harness.db, options: OpenOptions(readOnly: true, create: false))
        try reader.execute("BEGIN")
        let held = try reader.scalar("SELECT count(*) FROM events")?.int64 ?? -1
        let out = harness.folder.path("report")
        let report = try await harness.cli.run([
            "report", "--from", "2025-11-29", "--to", "2025-11-29", "--out", out, "--db", harness.db,
        ])
        #expect(report.status == 0, "\(report.stderr)")
        // Then the WAL grows past the limit while the snapshot is held (the pages it may read stay)
        let (grew, _, _) = await Self.watch(wal) { _ in Self.size(wal) > 2 * Self.limit }
        #expect(grew, "the WAL did not grow while a reader held a snapshot")
        #expect(try reader.scalar("SELECT count(*) FROM events")?.int64 == held)
        try reader.execute("COMMIT")
        // When the reader has ended, Then the file comes back within the limit while uploads go on
        let answered = load.okReplies
        let (back, _, _) = await Self.watch(wal) { _ in
            Self.size(wal) <= Self.limit && load.okReplies > answered + 20
        }
        #expect(back, "WAL still \(Self.size(wal)) bytes after the reader ended")
        // And every acknowledged event is stored, once each
        load.finish()
        #expect(load.badCounts == 0)
        #expect(try harness.storedIDs().isSuperset(of: load.acked))
        #expect(harness.server.stop().status == 0)
    }

    @Test func anIdleCollectorTruncatesItsWAL() async throws {
        // Given a collector that stored a few requests, then gets none
        let harness = try CollectorHarness()
        for _ in 0..<5 {
            #expect(try harness.post(EventLines.body(EventLines.batch(pairs: 50).lines)).status == 200)
        }
        // Then its WAL file is truncated to nothing (checked until seen; uploads resume it at once)
        let (truncated, _, _) = await Self.watch(harness.db + "-wal", deadline: 120) { _ in
            Self.size(harness.db + "-wal") == 0
        }
        #expect(truncated)
        #expect(harness.events == 500)
        #expect(harness.server.stop().status == 0)
    }

    @Test(arguments: ["512KiB", "0", "abc", "1048575"])
    func aMaxWALBelowOneMiBIsAUsageError(value: String) throws {
        let folder = TemporaryDirectory(prefix: "collector-wal")
        let cli = try CommandRunner(product: "paywall-analytics")
        let db = folder.path("c.sqlite")
        #expect(try cli.runBlocking(["keys", "add", "k", "--db", db]).status == 0)
        let result = try cli.runBlocking(["serve", "--listen", "127.0.0.1:0", "--db", db, "--max-wal", value])
        #expect(result.status == 64 && result.stderr.contains("--max-wal"), "\(result.stderr)")
    }
}
