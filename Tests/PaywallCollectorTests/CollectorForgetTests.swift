import Foundation
import PaywallTestSupport
import Testing

/// `forget` on the collector's central store, while `serve` runs: the customer's events go, later
/// uploads of theirs are refused (counted as suppressed in the answer and the metrics), and no byte
/// of the store's files, the collector's logs or its metrics holds the id.
@Suite(.serialized)
struct CollectorForgetTests {
    @Test func forgetOnTheCentralStoreSuppressesLaterUploadsOfTheCustomer() throws {
        // Given a running collector that stored two customers' uploads
        let harness = try CollectorHarness()
        let user = "central-forget-\(UUID().uuidString)"
        let other = "central-keep-\(UUID().uuidString.prefix(8))"
        let mine = EventLines.batch(pairs: 4, user: user)
        let theirs = EventLines.batch(pairs: 2, user: other)
        #expect(try harness.post(EventLines.body(mine.lines + theirs.lines)).status == 200)
        #expect(harness.events == 12)
        // When the customer is forgotten on the central store, with the collector still serving it
        let forgot = try harness.cli.runBlocking(["forget", "--user", user, "--db", harness.db])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stdout.contains("  events                  8\n"), "\(forgot.stdout)")
        #expect(harness.events == 4)
        // And an install uploads their events again (a late retry, and new ones, with a bad line of theirs)
        let later = EventLines.batch(pairs: 2, user: user)
        let lines =
            mine.lines + later.lines + ["{\"user_id\":\"\(user)\",\"name\":\"paywall_shown\"}"]
            + EventLines.batch(pairs: 1, user: other).lines
        let reply = try harness.post(EventLines.body(lines))
        // Then the answer counts them as suppressed (the counts still add up to the lines sent), nothing of
        // theirs is stored, and the metrics count the suppressed events under the key's name
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["accepted"] as? Int == 2)
        #expect(reply.json["suppressed"] as? Int == 13)
        #expect(reply.json["quarantined"] as? Int == 0)
        #expect(
            ["accepted", "duplicates", "quarantined", "suppressed"].compactMap { reply.json[$0] as? Int }.reduce(0, +)
                == lines.count)
        #expect(harness.events == 6)
        #expect(try harness.count("SELECT count(*) FROM quarantine") == 0)
        let metrics = try harness.get("/metrics").text
        #expect(
            metrics.contains("paywall_collector_events_total{key=\"ios-app\",outcome=\"suppressed\"} 13"), "\(metrics)")
        try metrics.write(toFile: harness.folder.path("metrics.txt"), atomically: true, encoding: .utf8)
        // And once the store is checkpointed (another forget does), no file holds the id: the store,
        // its -wal and -shm, the collector's logs, the metrics
        #expect(try harness.cli.runBlocking(["forget", "--user", "nobody", "--db", harness.db]).status == 0)
        harness.server.stop(SIGKILL)
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.folder.url.path).map(
            harness.folder.path)
        #expect(files.contains(harness.db) && files.count >= 4, "\(files)")
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data(user.utf8)) == nil, "the forgotten id is in \(file)")
        }
    }
}

/// Bad lines that carry a forgotten id in forms a `user_id` reader cannot see (a line cut mid-string,
/// an escaped key, the id in an array) are refused as suppressed by the running collector, by the
/// same whole-token rule `forget` erases quarantined lines by; another customer's bad lines that
/// merely contain the id's bytes are quarantined as usual.
@Suite(.serialized)
struct CollectorForgetTokenTests {
    static func badLines(_ id: String) -> [String] {
        [
            "{\"name\":\"x\",\"user_id\":\"\(id)",  // cut mid-string
            "{\"user\\u005fid\":\"\(id)\", bad}",  // escaped key, invalid JSON
            "{\"user_id\": [\"\(id)\"]}",  // wrong type
            "{\"name\":\"paywall_shown\",\"user_id\":\"v\\u0069ctim-\(id.dropFirst(7))\"}",  // escapes in the value
        ]
    }

    @Test func badLinesCarryingAForgottenIDAreSuppressedNotQuarantined() throws {
        let harness = try CollectorHarness()
        let victim = "victim-Zq9\(UUID().uuidString.prefix(6))"
        // The lines are quarantined while the customer is not forgotten; forget then erases every one
        let lines = Self.badLines(victim)
        let before = try harness.post(EventLines.body(lines))
        #expect(before.status == 200 && before.json["quarantined"] as? Int == lines.count, "\(before.text)")
        let forgot = try harness.cli.runBlocking(["forget", "--user", victim, "--db", harness.db])
        #expect(forgot.status == 0, "\(forgot.stderr)")
        #expect(forgot.stdout.contains("  quarantine              \(lines.count)\n"), "\(forgot.stdout)")
        #expect(harness.quarantined == 0)
        // Sent again, each is refused as suppressed, one request per line
        for line in lines {
            let reply = try harness.post(EventLines.body([line]))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json["suppressed"] as? Int == 1 && reply.json["quarantined"] as? Int == 0, "\(line)")
        }
        // Another customer's bad lines holding the id's bytes inside longer values are quarantined
        let other = [
            "{\"name\":\"x\",\"user_id\":\"not-\(victim)-either\"",
            "{\"user_id\": [\"\(victim)2\"]}",
            "{\"note\":\"\(victim) and more\", bad}",
        ]
        let reply = try harness.post(EventLines.body(other))
        #expect(reply.json["quarantined"] as? Int == other.count, "\(reply.text)")
        // forget checkpoints and cleans: no file holds the id as a whole token outside those lines
        #expect(try harness.cli.runBlocking(["forget", "--user", "nobody", "--db", harness.db]).status == 0)
        #expect(harness.quarantined == other.count)
    }
}
