import Foundation
import PaywallTestSupport
import Testing

/// A quarantined line is identified by its exact bytes, through the built binary: lines that differ
/// in one invalid byte, or long lines that share their first bytes, are separate entries, each with its
/// file and line; an exact repeat is "already quarantined"; invalid UTF-8 is shown with `\xHH` escapes.
struct QuarantineIdentityTests {
    let cli = try! CommandRunner()

    func importFile(_ data: Data, _ scratch: TemporaryDirectory, name: String) async throws -> CommandRunner.Output {
        let path = scratch.path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return try await cli.run(["import", path, "--db", scratch.path("e.sqlite")])
    }

    /// The quarantine export's records (header dropped), each as its cells.
    func quarantine(_ scratch: TemporaryDirectory) async throws -> [[String]] {
        let export = try await cli.run([
            "export", "quarantine", "--raw", "--out", "-", "--db", scratch.path("e.sqlite"),
        ])
        #expect(export.status == 0, "\(export.stderr)")
        let header = "seq,quarantined_at,reasons,origin,line,payload,payload_escaped\r\n"
        #expect(export.stdout.hasPrefix(header))
        let cells = CSV.cells(String(export.stdout.dropFirst(header.count)))
        return stride(from: 0, to: cells.count, by: 7).map { Array(cells[$0..<min($0 + 7, cells.count)]) }
    }

    @Test func linesThatDifferOnlyInAnInvalidByteAreTwoEntriesShownWithEscapes() async throws {
        // Given two one-line files that differ only in one invalid byte (\xFF and \xFE)
        let scratch = TemporaryDirectory(prefix: "security")
        let prefix = Data(#"{"id":"01936B2A-7C00-7000-8000-000000000001","source":"caf"#.utf8)
        let first = try await importFile(prefix + Data([0xFF]) + Data("\"}\n".utf8), scratch, name: "ff.ndjson")
        let second = try await importFile(prefix + Data([0xFE]) + Data("\"}\n".utf8), scratch, name: "fe.ndjson")
        // Then each is quarantined, neither "already"
        #expect(first.status == 65 && second.status == 65)
        #expect(
            first.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 1")
                && !first.stderr.contains("already"))
        #expect(
            second.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 1")
                && !second.stderr.contains("already"),
            "\(second.stdout)")
        // And the export shows both, each with its origin and line, the invalid byte as \xFF / \xFE, flagged escaped
        let rows = try await quarantine(scratch)
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.map { $0[3].hasSuffix("ff.ndjson") } == [true, false])
        #expect(rows.map { $0[3].hasSuffix("fe.ndjson") } == [false, true])
        #expect(rows.map { $0[4] } == ["1", "1"])
        #expect(
            rows.map { $0[5] } == [
                #"{"id":"01936B2A-7C00-7000-8000-000000000001","source":"caf\xFF"}"#,
                #"{"id":"01936B2A-7C00-7000-8000-000000000001","source":"caf\xFE"}"#,
            ])
        #expect(rows.map { $0[6] } == ["1", "1"])
        #expect(!rows.joined().joined().contains("\u{FFFD}"), "no replacement character")
        // When the first file is imported again
        let again = try await importFile(prefix + Data([0xFF]) + Data("\"}\n".utf8), scratch, name: "ff.ndjson")
        // Then it is already quarantined: still exit 65, nothing stored twice
        #expect(again.status == 65)
        #expect(again.stderr.contains("1 already were"), "\(again.stderr)")
        #expect(try await quarantine(scratch).count == 2)
    }

    @Test func longLinesSharingTheirFirstBytesAreTwoEntriesAndAnExactRepeatIsOne() async throws {
        // Given two lines over 1 MB that share their first 600 KB... and differ only in their last byte
        let scratch = TemporaryDirectory(prefix: "security")
        let body = #"{"id":"x","name":"paywall_shown","user_id":""# + String(repeating: "a", count: 1_100_000)
        let one = body + "1\"}"
        let two = body + "2\"}"
        let first = try await importFile(Data((one + "\n" + two + "\n").utf8), scratch, name: "long.ndjson")
        // Then both are quarantined, each with its own line number
        #expect(first.status == 65)
        #expect(
            first.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 2")
                && !first.stderr.contains("already"),
            "\(first.stdout)")
        var rows = try await quarantine(scratch)
        #expect(rows.map { $0[4] } == ["1", "2"], "\(rows.map { $0.prefix(5) })")
        #expect(rows.allSatisfy { $0[3].hasSuffix("long.ndjson") && $0[5].utf8.count == 512 && $0[6] == "0" })
        // When the second line comes again, written with CRLF, beside a third long line
        let three = body + "3\"}"
        let second = try await importFile(Data((two + "\r\n" + three + "\r\n").utf8), scratch, name: "long2.ndjson")
        // Then the repeat is "already quarantined" (the terminator is not part of the line) and the new one is stored
        #expect(second.stdout.hasPrefix("imported 0, duplicates 0, conflicts 0, quarantined 2"), "\(second.stdout)")
        #expect(second.stderr.contains("1 already were"), "\(second.stderr)")
        rows = try await quarantine(scratch)
        #expect(rows.map { $0[4] } == ["1", "2", "2"])
        #expect(rows.last?[3].hasSuffix("long2.ndjson") == true)
    }
}
