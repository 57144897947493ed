import Foundation
import PaywallTestSupport
import Testing

/// How `import` frames NDJSON lines, through the built binary: a UTF-8 byte-order mark at the start
/// of the input is accepted (file and standard input), the 1 MB line limit counts the content
/// without its `\n` or `\r\n`, and a line with thousands of problems keeps a bounded list of reasons.
struct LineFramingTests {
    let cli = try! CommandRunner()
    static let limit = 1 << 20

    /// A valid `paywall_shown` line padded with JSON whitespace before its closing brace to `bytes` bytes.
    static func paddedLine(_ n: Int, bytes: Int) -> Data {
        var line = Array(Sample.shown(n).utf8)
        let brace = line.removeLast()
        line += [UInt8](repeating: 0x20, count: bytes - line.count - 1)
        line.append(brace)
        return Data(line)
    }

    func importFile(_ data: Data, _ scratch: TemporaryDirectory, name: String = "in.ndjson") async throws
        -> CommandRunner.Output
    {
        let path = scratch.path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return try await cli.run(["import", path, "--db", scratch.path("e.sqlite")])
    }

    @Test(arguments: ["\n", "\r\n", ""])
    func aLineOfExactlyTheLimitIsImportedWhateverItsTerminator(terminator: String) async throws {
        // Given a valid line of exactly 1,048,576 bytes of content, ended by LF, by CRLF, or by nothing (end of file)
        let scratch = TemporaryDirectory(prefix: "security")
        let line = Self.paddedLine(1, bytes: Self.limit)
        #expect(line.count == Self.limit)
        var data = Data((Sample.shown(2) + "\n").utf8) + line + Data(terminator.utf8)
        if !terminator.isEmpty { data += Data((Sample.shown(3) + terminator).utf8) }
        // When it is imported
        let result = try await importFile(data, scratch)
        // Then it is an event like any other
        let expected = terminator.isEmpty ? 2 : 3
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.hasPrefix("imported \(expected), duplicates 0, conflicts 0, quarantined 0"),
            "\(result.stdout)")
    }

    @Test(arguments: ["\n", "\r\n"])
    func oneByteOverTheLimitIsQuarantinedWithTheContentLength(terminator: String) async throws {
        // Given a line of 1,048,577 bytes of content between two good lines
        let scratch = TemporaryDirectory(prefix: "security")
        let data =
            Data((Sample.shown(2) + terminator).utf8) + Self.paddedLine(1, bytes: Self.limit + 1)
            + Data((terminator + Sample.shown(3) + terminator).utf8)
        // When it is imported
        let result = try await importFile(data, scratch)
        // Then that line alone is quarantined, its length counted without the terminator
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("imported 2, duplicates 0, conflicts 0, quarantined 1"), "\(result.stdout)")
        let quarantine = try await cli.run(["export", "quarantine", "--out", "-", "--db", scratch.path("e.sqlite")])
        #expect(
            quarantine.stdout.contains("1048577 bytes, longer than the 1048576-byte limit"),
            "\(quarantine.stdout.prefix(400))")
        #expect(quarantine.stdout.contains("in.ndjson,2,"), "line 2 is named")
    }

    @Test(arguments: [false, true])
    func aByteOrderMarkAtTheStartIsAccepted(throughStandardInput: Bool) async throws {
        // Given NDJSON that starts with a UTF-8 byte-order mark (as some Windows tools write it)
        let scratch = TemporaryDirectory(prefix: "security")
        let data = Data([0xEF, 0xBB, 0xBF]) + Data((Sample.shown(1) + "\r\n" + Sample.shown(2) + "\r\n").utf8)
        // When it is imported from a file, or from a pipe
        let result: CommandRunner.Output
        if throughStandardInput {
            result = try await cli.run(["import", "-", "--db", scratch.path("e.sqlite")], stdin: data)
        } else {
            result = try await importFile(data, scratch)
        }
        // Then both events are imported and nothing is quarantined
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("imported 2, duplicates 0, conflicts 0, quarantined 0"), "\(result.stdout)")
        let events = try await cli.run(["export", "events", "--out", "-", "--db", scratch.path("e.sqlite")])
        #expect(!events.stdout.contains("\u{FEFF}"), "the mark is not data")
    }

    @Test func aByteOrderMarkAnywhereElseIsDataAndAFileOfOnlyTheMarkIsEmpty() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        // Given a mark at the start of the second line (two files concatenated), and a file holding only a mark
        let inside =
            Data((Sample.shown(1) + "\n").utf8) + Data([0xEF, 0xBB, 0xBF]) + Data((Sample.shown(2) + "\n").utf8)
        // When they are imported
        let first = try await importFile(inside, scratch)
        let second = try await importFile(Data([0xEF, 0xBB, 0xBF]), scratch, name: "mark-only.ndjson")
        let third = try await importFile(
            Data([0xEF, 0xBB]) + Data((Sample.shown(3) + "\n").utf8), scratch, name: "half.ndjson")
        // Then the mark inside the file is part of line 2 (quarantined); a file of only the mark holds no line;
        // half a mark is not a mark
        #expect(first.status == 65)
        #expect(first.stdout.hasPrefix("imported 1, duplicates 0, conflicts 0, quarantined 1"), "\(first.stdout)")
        let quarantine = try await cli.run(["export", "quarantine", "--out", "-", "--db", scratch.path("e.sqlite")])
        #expect(
            quarantine.stdout.contains("the line starts with a UTF-8 byte-order mark (U+FEFF)"),
            "the reason names the mark")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 0"), "\(second.stdout)")
        #expect(third.status == 65)
        #expect(third.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 1"), "\(third.stdout)")
    }

    @Test func aLineWithThousandsOfProblemsKeepsTwentyReasonsAndSaysHowManyMore() async throws {
        // Given one line of 60,000 different unknown keys (about 700 KB), one of 150,000 duplicate keys
        // (about 900 KB), and one with a few problems
        let scratch = TemporaryDirectory(prefix: "security")
        let distinct = #"{"name":"paywall_shown","# + (1...60_000).map { #""k\#($0)":1"# }.joined(separator: ",") + "}"
        let repeated = "{" + Array(repeating: #""x":1"#, count: 150_000).joined(separator: ",") + "}"
        let few = #"{"x":1}"#
        let result = try await importFile(Data((distinct + "\n" + repeated + "\n" + few + "\n").utf8), scratch)
        #expect(result.status == 65)
        let quarantine = try await cli.run([
            "export", "quarantine", "--raw", "--out", "-", "--db", scratch.path("e.sqlite"),
        ])
        let rows = quarantine.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 4, "\(rows.map { $0.prefix(200) })")
        func reasons(line: Int) throws -> String {
            let row = try #require(rows.first { $0.contains("in.ndjson,\(line),") })
            return try #require(CSV.cells(row + "\r\n").dropFirst(2).first)
        }
        // Then the distinct problems are cut at 20, and one more reason says how many were left out
        let many = try reasons(line: 1)
        #expect(
            many.components(separatedBy: "the property is not in the catalog").count - 1 <= 20, "\(many.prefix(300))")
        let note = try #require(many.components(separatedBy: "; ").last)
        #expect(
            note.hasPrefix("… and ") && note.hasSuffix(" more problems in this input (only the first 20 are kept)"),
            "\(note)")
        let more = Int(note.dropFirst("… and ".count).prefix { $0.isNumber }) ?? 0
        #expect(more >= 60_000 - 20, "\(note)")
        #expect(many.utf8.count < 10_000, "\(many.utf8.count) bytes of reasons")
        // And a problem repeated 149,999 times is one reason with its count, the other problems still listed
        let folded = try reasons(line: 2)
        #expect(folded.contains("x: the key appears more than once; keep one (149999 times)"), "\(folded)")
        #expect(!folded.contains("more problem"), "\(folded)")
        #expect(folded.utf8.count < 2_000, "\(folded.utf8.count) bytes of reasons")
        #expect(!(try reasons(line: 3)).contains("more problem"))
    }
}
