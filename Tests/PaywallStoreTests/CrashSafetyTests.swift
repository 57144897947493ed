import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct CrashSafetyTests {
    @Test func everyAcknowledgedEventSurvivesSIGKILLExactlyOnce() async throws {
        // Given a recorder in a child process that prints ids only after flush() returned
        let directory = TemporaryDirectory()
        var acknowledged = Set<String>()
        var everAcknowledged = 0
        let kills = Int(ProcessInfo.processInfo.environment["PAYWALL_CRASH_KILLS"] ?? "") ?? 20
        for round in 0..<kills {
            // A fresh store every 10 kills keeps each check proportional to what was recorded since.
            let path = directory.path("crash-\(round / 10).sqlite")
            if round % 10 == 0 { acknowledged = [] }
            let child = try ChildProcess(
                ["record", path], errorsTo: directory.url.appendingPathComponent("stderr-\(round)"))
            // When it is killed with SIGKILL once it has acknowledged 5 to 204 events (it
            // goes on recording and flushing meanwhile, so the kill lands inside a later flush)
            let target = 5 + (round * 53) % 200
            let read = await child.kill { lines in lines.filter { $0.count == 36 }.count >= target }
            let rest = String(decoding: await child.readAll(), as: UTF8.self).split(separator: "\n")
            await child.waitForExit()
            let acknowledgedNow = (read + rest.map(String.init)).filter { $0.count == 36 }
            #expect(acknowledgedNow.count >= target, "round \(round): the helper ended early: \(child.stderrText)")
            acknowledged.formUnion(acknowledgedNow)
            everAcknowledged += acknowledgedNow.count
            // Then reopening shows every acknowledged event once, the file is intact, and every
            // stored impression has its outbox row
            let store = try EventStore(path: path, now: .system)
            let connection = store.connection
            let stored = Set(try connection.all("SELECT id FROM events") { $0.string(at: 0) ?? "" })
            let missing = acknowledged.subtracting(stored)
            let sample = missing.sorted().prefix(3)
            #expect(
                missing.count == 0,
                "round \(round): \(missing.count) acknowledged ids missing (e.g. \(sample)); helper stderr: \(child.stderrText)"
            )
            #expect(try Fixtures.count(connection, "SELECT count(*) FROM events") == stored.count)
            #expect(try connection.scalar("PRAGMA integrity_check")?.string == "ok")
            #expect(
                try Fixtures.count(connection, "SELECT count(*) FROM events WHERE name = 'paywall_shown'")
                    == Fixtures.count(connection, "SELECT count(*) FROM outbox"))
            #expect(
                try Fixtures.count(
                    connection,
                    """
                    SELECT count(*) FROM events AS e WHERE e.name = 'paywall_shown'
                      AND NOT EXISTS (SELECT 1 FROM outbox AS o WHERE o.event_rowid = e.rowid AND o.occurred_at = e.occurred_at)
                    """) == 0)
        }
        #expect(everAcknowledged >= 100, "the helper acknowledged too few events to prove anything")
    }
}
