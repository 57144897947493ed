import Foundation
import PaywallTestSupport
import Testing

/// Progress bars appear on stderr only when it is a terminal, and never with --quiet. The
/// terminal is a real pseudo-terminal made by util-linux `script`.
struct TerminalMannersTests {
    let cli = try! CommandRunner()

    func bigFile(_ scratch: TemporaryDirectory) throws -> String {
        try scratch.write("big.ndjson", (1...25_000).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
    }

    func inTerminal(_ command: String) async throws -> String {
        let script = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/script"))
        let result = try await script.run(["-qec", command, "/dev/null"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        return result.stdout
    }

    @Test func aTerminalGetsAProgressBar() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let file = try bigFile(scratch)
        let screen = try await inTerminal("\(cli.executable.path) import \(file) --db \(scratch.path("t.sqlite"))")
        #expect(screen.contains("\r\u{1B}[2K["), "a bar was drawn")
        #expect(screen.contains("big.ndjson: "))
        #expect(screen.contains("imported 25000, duplicates 0, conflicts 0, quarantined 0"))
        let report = try await inTerminal(
            "\(cli.executable.path) report --nightly --out \(scratch.path("out")) --db \(scratch.path("t.sqlite"))")
        #expect(report.contains("] 100% folding new events into the report rollups"))
        #expect(report.contains("\r\u{1B}[2Kread 25000 new events"), "the bar is cleared before the summary")
    }

    @Test func quietOrAPipeGetsNoProgress() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let file = try bigFile(scratch)
        let quiet = try await inTerminal(
            "\(cli.executable.path) import \(file) --quiet --db \(scratch.path("q.sqlite"))")
        #expect(!quiet.contains("\u{1B}["))
        #expect(quiet.isEmpty, "--quiet prints neither progress nor the summary")
        let piped = try await cli.run(["import", file, "--db", scratch.path("p.sqlite")])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "no progress when stderr is not a terminal")
    }
}
