import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// `forget --users-from FILE|-`: the ids come from a file or standard input, one per line, so they
/// never appear in the command line (`ps`, shell history); a bad list changes nothing and says which
/// line is wrong without echoing an id. The built binary.
struct ForgetUsersFromTests {
    let cli = try! CommandRunner()

    /// A store holding one presentation of each user.
    func store(_ users: [String], in scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("events.sqlite")
        let lines = users.enumerated().flatMap { ForgetCommandTests.presentation($0.offset, user: $0.element) }
        let file = scratch.path("events.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await cli.run(["import", file, "--db", db]).status == 0)
        return db
    }

    func users(in db: String) throws -> Set<String> {
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        return Set(try connection.all("SELECT DISTINCT user_id FROM events") { $0.string(at: 0) ?? "" })
    }

    @Test func idsFromAFileOrStandardInputAreErasedAndNeverInTheCommandLine() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(["from-file-Kq2", "from-stdin-Zr8", "with space Lm4", "stays-Pw1"], in: scratch)
        // When ids come from a file (one with a space; no final newline) and from standard input
        let list = scratch.path("ids.txt")
        try "from-file-Kq2\nwith space Lm4".write(toFile: list, atomically: true, encoding: .utf8)
        let fromFile = try await cli.run(["forget", "--users-from", list, "--db", db])
        let fromStdin = try await cli.run(
            ["forget", "--users-from", "-", "--db", db], stdin: Data("from-stdin-Zr8\n".utf8))
        // Then exactly those customers are gone, and no output names one
        #expect(fromFile.status == 0 && fromStdin.status == 0, "\(fromFile.stderr) \(fromStdin.stderr)")
        #expect(try users(in: db) == ["stays-Pw1"])
        for output in [fromFile.stdout, fromFile.stderr, fromStdin.stdout, fromStdin.stderr] {
            #expect(!output.contains("Kq2") && !output.contains("Zr8") && !output.contains("Lm4"), "\(output)")
        }
        // And their later events are refused, as after `forget --user`
        let again = scratch.path("again.ndjson")
        try (ForgetCommandTests.presentation(90, user: "from-stdin-Zr8").joined(separator: "\n") + "\n")
            .write(toFile: again, atomically: true, encoding: .utf8)
        _ = try await cli.run(["import", again, "--db", db])
        #expect(try users(in: db) == ["stays-Pw1"])
    }

    @Test func aBadListChangesNothingAndSaysWhichLine() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = try await store(["secret-one-Vb3", "secret-two-Hx6"], in: scratch)
        // A blank line in the middle: 64, the line named, no id echoed, nothing erased
        let blank = scratch.path("blank.txt")
        try "secret-one-Vb3\n\nsecret-two-Hx6\n".write(toFile: blank, atomically: true, encoding: .utf8)
        let refused = try await cli.run(["forget", "--users-from", blank, "--db", db])
        #expect(refused.status == 64 && refused.stderr.contains("line 2"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Vb3") && !refused.stderr.contains("Hx6"))
        // Not UTF-8: 64
        let binary = scratch.path("binary.txt")
        try Data([0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: binary))
        let notText = try await cli.run(["forget", "--users-from", binary, "--db", db])
        #expect(notText.status == 64 && notText.stderr.contains("not UTF-8"), "\(notText.stderr)")
        // No such file: 66, saying what to give
        let missing = try await cli.run(["forget", "--users-from", scratch.path("none.txt"), "--db", db])
        #expect(missing.status == 66 && missing.stderr.contains("one id per line"), "\(missing.stderr)")
        #expect(try users(in: db) == ["secret-one-Vb3", "secret-two-Hx6"])
    }
}
