import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 12: a failed write to stdout or stderr is never ignored. Every command that
/// prints, run with its stdout on `/dev/full` (a real device whose writes fail with ENOSPC), exits
/// 74 and says so on stderr; with stderr on `/dev/full` too it still exits 74.
struct OutputWriteFailureTests {
    let cli = try! CommandRunner()

    /// Runs the binary through `sh` with stdout (and, if asked, stderr) sent to `/dev/full`.
    func runToDevFull(
        _ arguments: [String], stderrToo: Bool = false, environment: [String: String] = [:],
        directory: URL? = nil
    ) async throws -> CommandRunner.Output {
        let shell = CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"))
        let redirect = stderrToo ? "exec \"$0\" \"$@\" >/dev/full 2>/dev/full" : "exec \"$0\" \"$@\" >/dev/full"
        return try await shell.run(
            ["-c", redirect, cli.executable.path] + arguments, environment: environment, directory: directory)
    }

    /// A store with 20 impressions on 2025-11-29.
    func store(in scratch: TemporaryDirectory) async throws -> (db: String, input: String) {
        let db = scratch.path("events.sqlite")
        let input = try scratch.write(
            "in.ndjson",
            ((1...20).map { Sample.shown($0) })
                .joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        return (db, input)
    }

    @Test func everyCommandThatPrintsExits74WhenStdoutFails() async throws {
        // Given /dev/full is the real device, a store, and a stand-in accepting impressions
        var isDevice = stat()
        try #require(
            stat("/dev/full", &isDevice) == 0 && isDevice.st_mode & S_IFMT == S_IFCHR, "/dev/full is a character device"
        )
        let scratch = TemporaryDirectory(prefix: "cli")
        let (db, input) = try await store(in: scratch)
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let commands: [(arguments: [String], directory: URL?)] = [
            (["stats", "--db", db], nil),
            (["--help"], nil),
            (["help", "report"], nil),
            (["stats", "--help"], nil),
            (["--version"], nil),
            (["catalog", "check"], Golden.packageRoot()),
            (["import", input, "--db", db], nil),
            (["import", "-", "--db", db], nil),
            (
                ["report", "--from", "2025-11-28", "--to", "2025-11-30", "--out", scratch.path("range"), "--db", db],
                nil
            ),
            (
                ["report", "--nightly", "--out", scratch.path("nightly"), "--db", db, "--now", "2025-12-01T02:00:00Z"],
                nil
            ),
            (["export", "events", "--out", scratch.path("events.csv"), "--db", db], nil),
            (["export", "events", "--out", "-", "--db", db], nil),
            (["export", "events", "--format", "ndjson", "--out", "-", "--db", db], nil),
            (["forward", "--endpoint", standIn.baseURL.absoluteString, "--db", db], nil),
            (
                [
                    "demo", "--seed", "3", "--customers", "50", "--days", "3", "--out", scratch.path("demo"),
                    "--db", scratch.path("demo.sqlite"),
                ], nil
            ),
        ]
        for (arguments, directory) in commands {
            // When it runs with stdout on /dev/full
            let result = try await runToDevFull(
                arguments, environment: ["REVENUECAT_API_KEY": "appl_WriteFailure0123456789"],
                directory: directory)
            // Then it exits 74 and stderr says that standard output could not be written
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("standard output"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aFailingStderrStillExits74() async throws {
        // Given a store
        let scratch = TemporaryDirectory(prefix: "cli")
        let (db, _) = try await store(in: scratch)
        // When stats runs with both streams on /dev/full / Then it exits 74 (there is nowhere to say why)
        #expect(try await runToDevFull(["stats", "--db", db], stderrToo: true).status == 74)
        // And an error whose message cannot be written keeps its own exit code
        #expect(
            try await runToDevFull(["stats", "--db", scratch.path("missing.sqlite")], stderrToo: true).status == 66)
        // And a run whose only output is a warning on stderr exits 74 when that write fails
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        let shell = CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"))
        let warned = try await shell.run(
            [
                "-c", "exec \"$0\" \"$@\" 2>/dev/full", cli.executable.path, "forward", "--quiet",
                "--endpoint", standIn.baseURL.absoluteString, "--db", db,
            ],
            environment: ["REVENUECAT_API_KEY": "sk_live_abcdef123456"])
        #expect(warned.status == 74, "\(warned.status) \(warned.stdout)")
        #expect(standIn.requestCount == 1, "the run itself worked")
    }
}
