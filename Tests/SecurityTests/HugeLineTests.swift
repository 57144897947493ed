import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: an NDJSON line of 100 MB is rejected with a clear error, in bounded memory.
/// Peak memory is the child's own maximum resident set, measured by `/usr/bin/time` (GNU time, package
/// `time`), which forks the CLI directly so nothing of the test process is counted.
struct HugeLineTests {
    let cli = try! CommandRunner()
    static let megabytes = 100

    /// Writes good line, a 100 MB line (a JSON object whose string value never ends early), another good line.
    func hugeInput(_ scratch: TemporaryDirectory) throws -> String {
        let path = scratch.path("huge.ndjson")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(
            contentsOf: Data((Sample.shown(1) + "\n" + #"{"id":"x","name":"paywall_shown","user_id":""#).utf8))
        let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<Self.megabytes { try handle.write(contentsOf: chunk) }
        try handle.write(contentsOf: Data(("\"}\n" + Sample.shown(2) + "\n").utf8))
        try handle.close()
        return path
    }

    /// Runs `arguments` under GNU time; returns the output and the child's peak resident memory in KB.
    func measured(_ arguments: [String], stdinFile: String? = nil) async throws -> (CommandRunner.Output, Int) {
        let time = URL(fileURLWithPath: "/usr/bin/time")
        try #require(
            FileManager.default.isExecutableFile(atPath: time.path), "install GNU time (apt-get install -y time)")
        var command = ["-f", "peak_rss_kb=%M", cli.executable.path] + arguments
        if let stdinFile {  // through a pipe, as `cat FILE | paywall-analytics import - …` would
            command =
                ["-f", "peak_rss_kb=%M", "/bin/sh", "-c", "cat \"$0\" | \"$@\"", stdinFile, cli.executable.path]
                + arguments
        }
        let output = try await CommandRunner(executable: time).run(command)
        let last = output.stderr.split(separator: "\n").last.map(String.init) ?? ""
        let peak = try #require(
            Int(last.replacingOccurrences(of: "peak_rss_kb=", with: "")), "GNU time printed: \(output.stderr)")
        return (output, peak)
    }

    @Test(arguments: [false, true])
    func aHundredMegabyteLineIsQuarantinedInBoundedMemory(throughStandardInput: Bool) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let input = try hugeInput(scratch)
        let db = scratch.path("e.sqlite")
        let (result, peak) =
            throughStandardInput
            ? try await measured(["import", "-", "--db", db], stdinFile: input)
            : try await measured(["import", input, "--db", db])
        print("100 MB line (\(throughStandardInput ? "stdin" : "file")): peak RSS \(peak / 1024) MB")
        // Then it is refused with exit 65 and a message naming the limit, and the good lines around it are stored
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("imported 2, duplicates 0, conflicts 0, quarantined 1"), "\(result.stdout)")
        let quarantine = try await cli.run(["export", "quarantine", "--out", "-", "--db", db])
        #expect(quarantine.stdout.contains("longer than the 1048576-byte limit"), "\(quarantine.stdout.prefix(600))")
        #expect(quarantine.stdout.utf8.count < 1 << 20, "only a prefix of the line is kept")
        #expect(peak < 40 << 10, "peak RSS \(peak) KB for a \(Self.megabytes) MB line")
    }
}
