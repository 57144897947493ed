import Foundation
import PaywallTestSupport
import Testing

/// The built `import -` whose standard input (a real stream socket) is reset midway: it exits 74
/// with a message that names the failed read and says to retry, every complete line read before
/// the reset is stored, and the retry stores the rest and counts the stored lines as duplicates.
struct ImportReadFailureCommandTests {
    let cli = try! CommandRunner()

    @Test func standardInputResetMidwayExits74AndKeepsEveryCompleteLineReadBeforeIt() async throws {
        // Given 15,000 complete lines (more than one 10,000-line batch) and half of one more,
        // written into a socket that is the built import's standard input
        let scratch = TemporaryDirectory(prefix: "cli-read-failure")
        let db = scratch.path("events.sqlite")
        let lines = (0..<15_001).map { Sample.shown($0) }
        let sent = lines.dropLast().joined(separator: "\n") + "\n" + lines[15_000].prefix(80)
        let stream = try ResettableStream()
        let input = FileHandle(fileDescriptor: stream.readingEnd, closeOnDealloc: false)
        async let importing = cli.run(["import", "-", "--db", db], standardInput: input)
        do {
            try stream.send(Array(sent.utf8))
        } catch {
            // The import must end before the test can: without the reset it would wait for input
            stream.reset()
            _ = try? await importing
            throw error
        }
        // When the peer resets the socket after those bytes
        stream.reset()
        let result = try await importing
        // Then it exits 74, saying what failed and what to do
        #expect(result.status == 74, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("reading failed (Connection reset by peer)"), "\(result.stderr)")
        #expect(result.stderr.contains("retry"), "\(result.stderr)")
        // And every complete line is stored, the unfinished one neither stored nor quarantined
        let stats = try await cli.run(["stats", "--db", db])
        #expect(stats.stdout.contains("  paywall_shown               15000\n"), "\(stats.stdout)")
        #expect(stats.stdout.contains("\nQuarantined: 0\n"), "\(stats.stdout)")
        // And the retry with the whole input stores the rest, the rest counted as duplicates
        let whole = try scratch.write("whole.ndjson", lines.joined(separator: "\n") + "\n")
        let retry = try await cli.run(["import", whole, "--db", db])
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(retry.stdout == "imported 1, duplicates 15000, conflicts 0, quarantined 0\n")
    }
}
