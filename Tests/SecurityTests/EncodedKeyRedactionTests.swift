import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 10: a RevenueCat that echoes the key in any encoding (JSON escapes, percent,
/// base64 of the key or of the header, hex, another letter case, 7-byte pieces) gets none of it
/// into any byte the tool writes; a key that is too short or holds whitespace or a control
/// character is refused before anything is sent.
struct EncodedKeyRedactionTests {
    let cli = try! CommandRunner()
    static let key = "appl_Zq7Xv2Lw9Pk4Rt8Ny3Hs6Jd"

    @Test func everyEncodedEchoIsKeptOutOfEveryByteWritten() async throws {
        // Given one batch of 50 impressions per echoed form, and a stand-in refusing each batch with
        // 400 or 401 and a body echoing the key in the next form
        let scratch = TemporaryDirectory(prefix: "security")
        for folder in ["home", "tmp"] {
            try FileManager.default.createDirectory(atPath: scratch.path(folder), withIntermediateDirectories: true)
        }
        let environment = [
            "REVENUECAT_API_KEY": Self.key, "HOME": scratch.path("home"), "TMPDIR": scratch.path("tmp"),
            "XDG_DATA_HOME": scratch.path("home/.local/share"),
        ]
        let echoes = KeyForms.echoes(of: Self.key)
        let lines = (1...(50 * echoes.count)).map { Sample.shown($0) }
        let input = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        let db = scratch.path("events.sqlite")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        for (index, echo) in echoes.enumerated() {
            standIn.enqueue(.status(index % 2 == 0 ? 400 : 401, body: echo.body))
        }
        let endpoint = standIn.baseURL.absoluteString

        // When the impressions are forwarded and every dead-letter view is read
        let commands: [[String]] = [
            ["import", input],
            ["forward", "--endpoint", endpoint, "--max-batches", "1000"],
            ["stats"],
            ["export", "dead-letters", "--out", scratch.path("dead-letters.csv")],
            ["export", "dead-letters", "--out", scratch.path("dead-letters-raw.csv"), "--raw"],
            ["export", "dead-letters", "--out", "-"],
            ["export", "dead-letters", "--out", "-", "--raw"],
        ]
        var transcript = Data()
        for arguments in commands {
            let result = try await cli.run(arguments + ["--db", db], environment: environment, directory: scratch.url)
            #expect([0, 65].contains(result.status), "\(arguments): \(result.stderr)")
            transcript += Data("$ \(arguments)\n\(result.stdout)\n\(result.stderr)\n".utf8)
        }

        // Then every form was sent back by the stand-in and dead-lettered
        #expect(standIn.requestCount == echoes.count)
        let rows = try String(contentsOfFile: scratch.path("dead-letters.csv"), encoding: .utf8)
            .split(separator: "\r\n").dropFirst()
        #expect(rows.count == 50 * echoes.count)
        #expect(rows.allSatisfy { $0.contains("(redacted)") }, "every reason had a key form cut out")
        // And no file (database, -wal, -shm, exports, HOME, TMPDIR) nor any output holds any form of the key
        let files = scratch.allFiles().filter { $0 != input }
        #expect(files.contains(db) && files.count >= 3, "\(files)")
        // (searched on a Dispatch thread: a long CPU-bound search would hold one of the two pool threads)
        let found = try await Self.offThePool { [transcript] in
            try files.map { file in
                (file, KeyForms.leaks(of: Self.key, in: try Data(contentsOf: URL(fileURLWithPath: file))))
            }
                + [("the output", KeyForms.leaks(of: Self.key, in: transcript))]
        }
        for (place, leaks) in found { #expect(leaks.isEmpty, "\(place) holds \(leaks.prefix(5))") }
    }

    /// Runs `body` on a Dispatch thread, off Swift concurrency's pool.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    @Test(arguments: [
        ("appl_Zq7Xv2Lw9\nPk4Rt8Ny3", "line break"), ("appl_Zq7Xv2Lw9\tPk4Rt8Ny3", "tab"),
        ("appl_Zq7Xv2Lw9 Pk4Rt8Ny3", "space"), ("appl_Zq7Xv2Lw9\u{1B}Pk4Rt8Ny3", "escape"),
        ("appl_Zq7Xv2Lw9Pk4Rt8Ny3\r\n", "CRLF"), ("appl_Zq7Xv2Lw9\u{7F}Pk4", "DEL"),
        ("test_ab", "short"), ("appl_", "prefix only"), ("goog_123456789", "9 after the prefix"),
    ])
    func aMalformedOrShortKeyExits64AndSendsNothing(key: String, what: String) async throws {
        // Given pending impressions and a key that is too short or holds whitespace or a control character
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let input = try scratch.write("in.ndjson", (1...3).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }

        // When forward runs with it
        let result = try await cli.run(
            ["forward", "--db", db, "--endpoint", standIn.baseURL.absoluteString],
            environment: ["REVENUECAT_API_KEY": key])

        // Then it exits 64 with a message saying what is wrong, sends nothing, and the impressions stay pending
        #expect(result.status == 64, "\(what): \(result.stderr)")
        let expected =
            what.contains("short") || what.contains("prefix") || what.contains("after") ? "too short" : "position"
        #expect(
            result.stderr.contains(expected) && result.stderr.contains("REVENUECAT_API_KEY"),
            "\(what): \(result.stderr)")
        let printable = key.trimmingCharacters(in: .whitespacesAndNewlines)
        if printable.count > 5 { #expect(!result.stderr.contains(printable), "the message never repeats the key") }
        #expect(standIn.received.connections == 0)
        #expect(try await cli.run(["stats", "--db", db]).stdout.contains("RevenueCat outbox: 3 pending"))
    }
}
