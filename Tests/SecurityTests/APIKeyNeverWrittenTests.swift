import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: the RevenueCat API key appears in no byte the tool writes.
struct APIKeyNeverWrittenTests {
    let cli = try! CommandRunner()
    static let key = "appl_SecurityKey_Zq7Xv2Lw9Pk4Rt8Ny3"

    /// The key and every 8-character slice of it: a partial echo (a truncated or split key) counts as a leak.
    static var needles: [String] {
        let characters = Array(key)
        return [key] + (0...(characters.count - 8)).map { String(characters[$0..<($0 + 8)]) }
    }

    @Test func aFullSessionWritesTheKeyNowhere() async throws {
        // Given a scratch HOME and TMPDIR (so any stray file lands where it is searched), 60 impressions and
        // a RevenueCat stand-in that answers 503, then a 401 and a 400 whose bodies echo the key, then 200s
        let scratch = TemporaryDirectory(prefix: "security")
        for folder in ["home", "tmp"] {
            try FileManager.default.createDirectory(atPath: scratch.path(folder), withIntermediateDirectories: true)
        }
        let environment = [
            "REVENUECAT_API_KEY": Self.key, "HOME": scratch.path("home"), "TMPDIR": scratch.path("tmp"),
            "XDG_DATA_HOME": scratch.path("home/.local/share"),
        ]
        let lines =
            (1...60).map { Sample.shown($0, placement: $0 % 2 == 0 ? "settings" : "onboarding") }
            + (1...10).map { Sample.purchased($0, product: "pro_annual") } + ["not json \(Self.key.prefix(4))"]
        let input = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let db = scratch.path("events.sqlite")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let echo = "{\"code\":7225,\"message\":\"Invalid API key \(Self.key) (\(Self.key.dropFirst(5)))\"}"
        // Retry-After: 0 makes the 503's batch due again at once, so the run does not depend on backoff jitter
        standIn.enqueue(
            .status(503, body: echo, headers: ["Retry-After": "0"]), .status(401, body: echo), .status(400, body: echo))
        let endpoint = standIn.baseURL.absoluteString

        // When a whole session runs with the key in the environment of every command
        let commands: [[String]] = [
            ["import", input],
            ["forward", "--endpoint", endpoint, "--max-batches", "1"],
            ["forward", "--endpoint", endpoint, "--max-batches", "1"],
            ["forward", "--endpoint", endpoint, "--max-batches", "1"],
            ["stats"],
            ["forward", "--endpoint", endpoint, "--requeue-dead-letters"],
            ["forward", "--endpoint", endpoint],
            ["stats"],
            ["report", "--nightly", "--out", scratch.path("nightly"), "--now", "2025-12-01T02:00:00Z"],
            ["report", "--from", "2025-11-28", "--to", "2025-11-30", "--out", scratch.path("range")],
            ["export", "events", "--out", scratch.path("events.csv")],
            ["export", "funnels", "--out", scratch.path("funnels.csv")],
            ["export", "quarantine", "--out", scratch.path("quarantine.csv")],
            ["export", "dead-letters", "--out", scratch.path("dead-letters.csv")],
            ["export", "dead-letters", "--out", "-", "--raw"],
            ["export", "quarantine", "--out", "-", "--raw"],
        ]
        var transcript = ""
        for arguments in commands {
            let result = try await cli.run(arguments + ["--db", db], environment: environment, directory: scratch.url)
            #expect([0, 65, 69].contains(result.status), "\(arguments): \(result.stderr)")
            transcript += "$ \(arguments)\n\(result.stdout)\n\(result.stderr)\n"
        }

        // Then the session did exercise every failure: the key was sent (so the tool had it) and refused
        #expect(standIn.exchanges.contains { $0.response == .status(401, body: echo) })
        #expect(standIn.exchanges.contains { $0.response == .status(400, body: echo) })
        #expect(standIn.exchanges.contains { $0.request.headerLines.contains { $0.value.contains(Self.key) } })
        let deadLetters = try String(contentsOfFile: scratch.path("dead-letters.csv"), encoding: .utf8)
        #expect(deadLetters.split(separator: "\r\n").count > 1, "the refusals were dead-lettered:\n\(transcript)")
        #expect(standIn.acceptedEventIDs.count == 60, "every impression delivered after the requeue")
        // And no file under the scratch folder (database, -wal, -shm, CSVs, report.html, run.json, HOME, TMPDIR)
        // nor any output holds the key or any 8-character slice of it
        let files = scratch.allFiles().filter { $0 != input }
        #expect(
            files.contains(db) && files.contains { $0.hasSuffix("report.html") }
                && files.contains { $0.hasSuffix("run.json") })
        #expect(files.count >= 20, "\(files)")
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            let found = Self.needles.filter { bytes.contains($0) }
            #expect(found.isEmpty, "\(file) holds \(found)")
        }
        for needle in Self.needles where transcript.contains(needle) {
            let line = transcript.split(separator: "\n").first { $0.contains(needle) } ?? ""
            Issue.record("the output holds \"\(needle)\" in: \(line.prefix(300))")
        }
    }
}
