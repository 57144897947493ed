import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: files are created with documented modes. The database and its -wal/-shm are 0600
/// whatever the umask (they hold user ids); report outputs (CSV, report.html, run.json) and export
/// files are created 0644 and the umask can only narrow that (0600 under `umask 077`).
struct FileModeTests {
    let cli = try! CommandRunner()
    let shell = CommandRunner(executable: URL(fileURLWithPath: "/bin/sh"))

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, "\(path)")
    }

    /// Runs the CLI (or another built product) under `umask`.
    func run(umask: String, _ executable: URL, _ arguments: [String]) async throws -> CommandRunner.Output {
        try await shell.run(["-c", "umask \(umask) && exec \"$0\" \"$@\"", executable.path] + arguments)
    }

    @Test(arguments: ["000", "022", "077"])
    func databaseIs0600AndOutputsAre0644NarrowedOnlyByTheUmask(umask: String) async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let input = try scratch.write("in.ndjson", (1...20).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        let imported = try await run(umask: umask, cli.executable, ["import", input, "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try mode(db) == 0o600)
        // While a process holds the database open with a write transaction, its -wal and -shm exist
        let helper = try CommandRunner(product: "recorder-crash-helper")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "umask \(umask) && exec \"$0\" hold-lock \"$1\"", helper.executable.path, db]
        let output = Pipe()
        let input2 = Pipe()
        holder.standardOutput = output
        holder.standardInput = input2
        try holder.run()
        let line = output.fileHandleForReading.availableData
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("locked"))
        for file in [db + "-wal", db + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file) exists while the database is in use")
            #expect(try mode(file) == 0o600, "\(file)")
        }
        #expect(try PipeWriting.write(Data("done\n".utf8), to: input2.fileHandleForWriting), "the holder exited early")
        holder.waitUntilExit()

        let expected = umask == "077" ? 0o600 : 0o644
        let nightly = scratch.path("nightly")
        let report = try await run(
            umask: umask, cli.executable,
            ["report", "--nightly", "--out", nightly, "--db", db, "--now", "2025-12-01T02:00:00Z"])
        #expect(report.status == 0, "\(report.stderr)")
        // The files of the run on show (--out/current → runs/<run id>; the top-level names are links to them)
        let names = try FileManager.default.contentsOfDirectory(atPath: nightly + "/current").sorted()
        #expect(
            names.contains("report.html") && names.contains("run.json")
                && names.filter { $0.hasSuffix(".csv") }.count == 9, "\(names)")
        for name in names {
            #expect(try mode("\(nightly)/current/\(name)") == expected, "\(name) under umask \(umask)")
        }
        let export = try await run(
            umask: umask, cli.executable, ["export", "events", "--out", scratch.path("e.csv"), "--db", db])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try mode(scratch.path("e.csv")) == expected)
        #expect(try mode(db) == 0o600, "no command widens the database's mode")
    }
}
