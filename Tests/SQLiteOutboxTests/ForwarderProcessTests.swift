import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// The forwarder on a real SQLite file, against the real loopback stand-in, in real child processes.
struct ForwarderProcessTests {
    let directory = TemporaryDirectory()
    var dbPath: String { directory.path("events.sqlite") }

    func seed(_ count: Int) throws -> EventStore {
        let store = try EventStore(path: dbPath, now: .constant(1_764_500_000_000))
        try store.insert(impressions(count))
        return store
    }

    func states(_ store: EventStore) throws -> [String: Int64] { try deliveryStates(store.connection) }

    @Test func processKilledBetweenSendingAndMarkingDeliveredResendsTheSameIdsAndLosesNone() async throws {
        // Given 200 pending impressions and a stand-in that receives the first batch but holds its answer
        let store = try seed(200)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.delayed(.seconds(120), .accepted))
        // When a forwarder process sends that batch and is killed with SIGKILL before the answer arrives
        let stdout = Pipe()
        let stderr = Pipe()
        let victim = try Helper.start(db: dbPath, port: standIn.port, leaseMs: 600_000, stdout: stdout, stderr: stderr)
        // The wait and the kill run on a thread of their own: inside the whole parallel suite the
        // concurrency pool's two threads can be held by other tests for longer than the child's 30 s
        // request timeout, and the child would then give up by itself before being killed.
        let pid = victim.processIdentifier
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                _ = Eventually.holdsBlocking { standIn.requestCount > 0 }
                kill(pid, SIGKILL)
                done.resume()
            }.start()
        }
        #expect(standIn.requestCount == 1)
        victim.waitUntilExit()
        #expect(
            victim.terminationReason == .uncaughtSignal,
            """
            the victim exited \(victim.terminationStatus) before the kill: \
            \(String(decoding: stdout.fileHandleForReading.availableData, as: UTF8.self)) \
            \(String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self))
            """)
        let sentBeforeKill = try #require(standIn.exchanges.first).eventIDs
        #expect(sentBeforeKill.count == 50)
        // Then nothing was marked delivered
        #expect(try states(store) == ["pending": 200])
        // When a new process runs while the dead process's lease (10 minutes) has not expired: its
        // holder is gone, so the new process takes it over at once
        #expect(try SQLiteOutbox(store: store).lease() != nil)
        let rerun = try await Helper.run(db: dbPath, port: standIn.port)
        // Then it resends the same ids first and delivers all 200; none is lost
        #expect(rerun.status == 0, "\(rerun.err)")
        #expect(rerun.out.hasPrefix("delivered=200 "), "\(rerun.out)")
        #expect(standIn.exchanges[1].eventIDs == sentBeforeKill)
        #expect(try states(store) == ["delivered": 200])
        let deliveredAfter = Set(standIn.exchanges.dropFirst().flatMap(\.eventIDs))
        #expect(deliveredAfter == Set(impressions(200).map(\.id.uuidString)))
        #expect(standIn.violations == [])
    }

    @Test func retryAfterReceivedByOnePassIsRespectedByAPassInANewProcess() async throws {
        // Given 10 pending impressions and a stand-in answering 429 Retry-After: 120
        let store = try seed(10)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.retryAfter("120"))
        let start: Int64 = 1_764_600_000_000
        // When one process forwards
        let first = try await Helper.run(db: dbPath, port: standIn.port, now: start)
        // Then the next attempt is stored 120 s later
        #expect(
            first.out.contains("will_retry=10") && first.out.contains("unavailable=1")
                && first.out.contains("next=\(start + 120_000)"),
            "\(first.out)\(first.err)")
        // When a new process runs 119 s later / Then it sends nothing
        let early = try await Helper.run(db: dbPath, port: standIn.port, now: start + 119_000)
        #expect(early.out.contains("requests=0"), "\(early.out)")
        #expect(standIn.requestCount == 1)
        // When a new process runs at 120 s / Then it delivers the same ids with X-Retry-Count 1
        let onTime = try await Helper.run(db: dbPath, port: standIn.port, now: start + 120_000)
        #expect(onTime.out.hasPrefix("delivered=10 "), "\(onTime.out)")
        #expect(standIn.exchanges[1].eventIDs == standIn.exchanges[0].eventIDs)
        #expect(standIn.exchanges[1].request.header("X-Retry-Count") == "1")
        #expect(try states(store) == ["delivered": 10])
    }

    @Test func aPassInAnotherProcessIsBusyWhileTheLeaseIsHeld() async throws {
        let store = try seed(5)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let outbox = SQLiteOutbox(store: store)
        let now = Now.system.milliseconds()
        #expect(try outbox.acquireLease(owner: "embedding-app", now: now, durationMs: 60_000))
        let run = try await Helper.run(db: dbPath, port: standIn.port)
        #expect(run.out.trimmingCharacters(in: .whitespacesAndNewlines) == "busy")
        #expect(standIn.requestCount == 0)
        try outbox.releaseLease(owner: "embedding-app")
        #expect(try await Helper.run(db: dbPath, port: standIn.port).out.hasPrefix("delivered=5 "))
    }

    @Test func theKeyIsNowhereInTheDatabaseFilesOrOutputsAfterASessionOfFailures() async throws {
        // Given a stand-in that echoes the key back in refusals and errors
        let store = try seed(300)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { index, request in
            let echo = "{\"message\":\"\(request.header("Authorization") ?? "") is not valid\"}"
            return [.status(401, body: echo), .status(503, body: echo), .closeMidResponse, .accepted][index % 4]
        }
        // When several processes forward, time moving on between them
        var outputs: [String] = []
        for step in 0..<12 {
            let run = try await Helper.run(
                db: dbPath, port: standIn.port, now: 1_764_600_000_000 + Int64(step) * 3_600_000)
            outputs += [run.out, run.err]
        }
        try store.connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        // Then the stand-in did get the key, and no file or output holds it
        #expect(standIn.exchanges.contains { $0.request.header("Authorization") == "Bearer \(secret)" })
        #expect(try store.connection.scalar("SELECT count(*) FROM dead_letters")?.int64 ?? 0 > 0)
        let needle = Data(secret.utf8)
        for suffix in ["", "-wal", "-shm"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: dbPath + suffix))) ?? Data()
            #expect(bytes.range(of: needle) == nil, "key found in events.sqlite\(suffix)")
        }
        for output in outputs { #expect(!output.contains(secret)) }
    }
}
