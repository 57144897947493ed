import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// SIGKILL and SIGTERM under load from 8 clients: no acknowledged event is ever lost or stored twice.
@Suite(.serialized)
struct CollectorCrashTests {
    /// Integrity and the acknowledged ids, read on a connection of the test's own while the collector is down.
    func check(_ harness: CollectorHarness, acked: Set<String>) throws -> (integrity: String, missing: Int, rows: Int) {
        let connection = try Connection(path: harness.db)
        let integrity = try connection.scalar("PRAGMA integrity_check")?.string ?? ""
        let stored = Set(try connection.all("SELECT id FROM events") { $0.string(at: 0) ?? "" })
        let rows = Int(try connection.scalar("SELECT count(*) FROM events")?.int64 ?? -1)
        return (integrity, acked.subtracting(stored).count, rows - stored.count)
    }

    @Test func sigkillUnderLoadTwentyTimesLosesNoAcknowledgedEvent() throws {
        let harness = try CollectorHarness()
        let clients = LoadClients(clients: 8, key: harness.key)
        clients.setPort(harness.port)
        var kills = 0
        for round in 0..<20 {
            // Killed once 5 to 45 more batches are acknowledged: the clients keep posting meanwhile,
            // so the kill lands among requests in flight and commits under way.
            let target = clients.okReplies + 5 + (round % 5) * 10
            #expect(clients.waitForOKReplies(atLeast: target), "round \(round): the collector stopped acknowledging")
            clients.setPort(0)
            harness.server.stop(SIGKILL)
            kills += 1
            let acked = clients.acked
            let result = try check(harness, acked: acked)
            #expect(result.integrity == "ok", "round \(round)")
            #expect(result.missing == 0, "round \(round): \(result.missing) acknowledged events missing")
            #expect(result.rows == 0)
            try harness.restart()
            clients.setPort(harness.port)
        }
        clients.finish()
        #expect(kills == 20)
        #expect(clients.okReplies > 20)
        print("SIGKILL x\(kills): \(clients.okReplies) batches acknowledged, \(clients.generated.count) events")
        #expect(clients.badCounts == 0)
        let stored = try harness.storedIDs()
        #expect(stored == clients.generated)
        #expect(clients.acked == clients.generated)
        #expect(harness.events == stored.count)
        #expect(try harness.count("SELECT count(*) FROM outbox") == stored.count / 2)
    }

    @Test func sigtermDuringLoadExitsZeroSoonAndKeepsEveryAcknowledgedEvent() throws {
        let harness = try CollectorHarness()
        let clients = LoadClients(clients: 8, key: harness.key)
        clients.setPort(harness.port)
        #expect(clients.waitForOKReplies(atLeast: 30), "the collector acknowledged fewer than 30 batches")
        let stopped = harness.server.stop(SIGTERM)
        clients.setPort(0)
        #expect(stopped.status == 0)
        #expect(stopped.seconds < 10)
        let result = try check(harness, acked: clients.acked)
        #expect(result.integrity == "ok" && result.missing == 0)
        #expect(harness.server.stderrText.contains("serve: stopped"))
        try harness.restart()
        clients.setPort(harness.port)
        clients.finish()
        #expect(clients.badCounts == 0)
        #expect(try harness.storedIDs() == clients.generated)
    }
}
