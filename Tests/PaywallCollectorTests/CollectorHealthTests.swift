import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `GET /healthz` apart from the data: answered from the writer's last known state without a job
/// in the writer's queue (so a flood of health checks turns no upload away), 503 while writes fail
/// (a full disk included), the repeated failure logged once, and a body sent with it not counted
/// as received. The built `serve` on 127.0.0.1.
@Suite(.serialized)
struct CollectorHealthTests {
    func metric(_ harness: CollectorHarness, _ name: String) throws -> Int {
        let text = try harness.get("/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + " ") }) else { return -1 }
        return Int(line.split(separator: " ").last ?? "") ?? -1
    }

    @Test func healthChecksTakeNoPlaceInTheWritersQueue() throws {
        // Given a collector with room for one waiting request, whose writer is held by a lock
        let harness = try CollectorHarness(arguments: ["--queue", "1"])
        let status = CollectorStatusTests()
        let locker = try Connection(path: harness.db)
        try locker.execute("BEGIN IMMEDIATE")
        let first = EventLines.batch(pairs: 1)
        let one = try HTTPConnection(port: harness.port)
        one.send(status.postBytes(EventLines.body(first.lines), key: harness.key))
        try status.waitForCommits(harness, started: 1)
        // When 200 health checks arrive, on 20 connections at once
        let answers = Statuses()
        DispatchQueue.concurrentPerform(iterations: 20) { _ in
            guard let connection = try? HTTPConnection(port: harness.port) else { return }
            for _ in 0..<10 {
                connection.send(HTTPRequestText.make("GET", "/healthz"))
                if let reply = try? connection.readResponse() { answers.append(reply.status) }
            }
        }
        // Then each is answered at once (the last write succeeded moments ago), and the queue's one
        // place is still free for an upload
        #expect(answers.all == Array(repeating: 200, count: 200))
        let second = EventLines.batch(pairs: 1)
        let two = try HTTPConnection(port: harness.port)
        two.send(status.postBytes(EventLines.body(second.lines), key: harness.key))
        try status.waitForQueueDepth(harness, 1)
        try locker.execute("ROLLBACK")
        #expect(try one.readResponse().status == 200)
        #expect(try two.readResponse().status == 200)
        #expect(try harness.storedIDs() == Set(first.ids + second.ids))
    }

    @Test func aFullDiskMakesHealth503AndTheFailureIsLoggedOnce() throws {
        // Given a collector whose process may write files of at most 2 MiB (the shell's file-size
        // limit, as a full disk refuses writes; the signal it would send is ignored)
        let harness = try CollectorHarness(
            wrapper: ["/bin/sh", "-c", "trap '' XFSZ; ulimit -f 4096; exec \"$0\" \"$@\""])
        #expect(try harness.get("/healthz").status == 200)
        // When uploads fill the store past the limit: the database file at the limit and 20 uploads
        // refused in a row (a refusal before that may only mean that the WAL reached the limit, and
        // the next checkpoint moves it into the database and makes room again)
        let limit = 4_096 * 512
        func databaseBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: harness.db))?[.size] as? Int) ?? 0
        }
        var refused = 0
        var attempts = 0
        while refused < 20 || databaseBytes() < limit - 8_192, attempts < 2_000 {
            attempts += 1
            let reply = try harness.post(EventLines.body(EventLines.batch(pairs: 200).lines))
            if reply.status == 503 {
                refused += 1
            } else {
                #expect(reply.status == 200, "\(reply.text)")
                refused = 0
            }
        }
        #expect(refused >= 20 && databaseBytes() >= limit - 8_192, "after \(attempts) uploads")
        // And the collector has since probed its store twice on its own (a one-row write fits on a
        // store where an upload does not: the probe must be as large as the refused writes)
        let ok = "paywall_collector_health_probes_total{result=\"ok\"}"
        let failed = "paywall_collector_health_probes_total{result=\"failed\"}"
        let probesBefore = try metric(harness, ok) + metric(harness, failed)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(120))
        while try metric(harness, ok) + metric(harness, failed) < probesBefore + 2, clock.now < deadline {
            usleep(20_000)
        }
        #expect(try metric(harness, ok) + metric(harness, failed) >= probesBefore + 2)
        // Then /healthz says 503 with the reason, and the log has the failure once, not once per request
        let health = try harness.get("/healthz")
        let sizes = [harness.db, harness.db + "-wal"].map {
            "\($0): \(((try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? Int) ?? -1) bytes"
        }
        #expect(health.status == 503, "\(health.text)\n\(sizes)\n\(harness.server.stderrText)")
        #expect(health.text.contains("cannot take writes"), "\(health.text)")
        let failures = harness.server.stderrText.split(separator: "\n").filter {
            $0.contains("failed, its requests were answered 503")
        }
        #expect((1...2).contains(failures.count), "\(harness.server.stderrText)")
    }

    @Test func aBodySentToHealthzIsNotCountedAsReceived() throws {
        let harness = try CollectorHarness()
        let before = try metric(harness, "paywall_collector_received_bytes_total")
        let connection = try HTTPConnection(port: harness.port)
        let body = [UInt8](repeating: 0x61, count: 200_000)
        connection.send(HTTPRequestText.make("GET", "/healthz", body: body))
        #expect(try connection.readResponse().status == 200)
        let event = EventLines.presentation()
        let upload = EventLines.body(event.lines)
        #expect(try harness.post(upload).status == 200)
        #expect(try metric(harness, "paywall_collector_received_bytes_total") == before + upload.count)
    }
}

/// Statuses collected from several threads.
final class Statuses: @unchecked Sendable {
    // @unchecked Sendable: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}
