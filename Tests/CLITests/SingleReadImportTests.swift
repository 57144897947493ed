import Foundation
import PaywallTestSupport
import Testing

/// Hardening item 3: `import` reads every input exactly once, so a pipe, `/dev/stdin`, a process
/// substitution (`<(…)`) or a FIFO loses no byte and never blocks on a second open; a regular SQLite
/// store is still imported as a store, and a database piped in is refused with a clear error.
struct SingleReadImportTests {
    let cli = try! CommandRunner()
    let bash = CommandRunner(executable: URL(fileURLWithPath: "/bin/bash"))

    /// 40 valid impressions, one per line (the first line is longer than the 16-byte sniff).
    static let lines = (1...40).map { Sample.shown($0) }
    static var body: String { lines.joined(separator: "\n") + "\n" }

    func expectAllImported(_ result: CommandRunner.Output, _ db: String, _ label: String) async throws {
        #expect(result.status == 0, "\(label): \(result.stdout)\(result.stderr)")
        #expect(
            result.stdout == "imported 40, duplicates 0, conflicts 0, quarantined 0\n",
            "\(label): \(result.stdout)\(result.stderr)")
        let stats = try await cli.run(["stats", "--db", db])
        #expect(stats.stdout.contains("Events: 40 "), "\(label): \(stats.stdout)")
        #expect(stats.stdout.contains("Quarantined: 0"), "\(label): \(stats.stdout)")
    }

    @Test func devStdinFedByAPipeImportsEveryLine() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let db = scratch.path("events.sqlite")
        let result = try await cli.run(["import", "/dev/stdin", "--db", db], stdin: Data(Self.body.utf8))
        try await expectAllImported(result, db, "/dev/stdin")
    }

    @Test func aProcessSubstitutionImportsEveryLine() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let file = try scratch.write("in.ndjson", Self.body)
        let db = scratch.path("events.sqlite")
        let result = try await bash.run(
            ["-c", #"exec timeout 60 "$PA" import <(cat "$1") --db "$2""#, "bash", file, db],
            environment: ["PA": cli.executable.path])
        try await expectAllImported(result, db, "<(cat f)")
    }

    @Test func aFIFOWithAWriterImportsEveryLineAndDoesNotHang() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let file = try scratch.write("in.ndjson", Self.body)
        let fifo = scratch.path("events.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let db = scratch.path("events.sqlite")
        // The writer opens the FIFO on its own; a second open by the importer would block for ever
        // (timeout turns that into exit 124).
        let script =
            #"cat "$1" > "$2" & timeout 60 "$PA" import "$2" --db "$3"; status=$?; kill %1 2>/dev/null; exit $status"#
        let result = try await bash.run(
            ["-c", script, "bash", file, fifo, db], environment: ["PA": cli.executable.path])
        try await expectAllImported(result, db, "FIFO")
    }

    @Test func aStoreFileIsStillImportedAsAStoreButNotFromAPipe() async throws {
        let scratch = TemporaryDirectory(prefix: "cli")
        let source = scratch.path("device.sqlite")
        #expect(try await cli.run(["import", "-", "--db", source], stdin: Data(Self.body.utf8)).status == 0)
        let db = scratch.path("central.sqlite")
        let imported = try await cli.run(["import", source, "--db", db])
        try await expectAllImported(imported, db, "store file")
        let piped = try await bash.run(
            [
                "-c", #"cat "$1" | timeout 60 "$PA" import - --db "$2""#, "bash", source,
                scratch.path("other.sqlite"),
            ], environment: ["PA": cli.executable.path])
        #expect(piped.status == 65, "\(piped.stderr)")
        #expect(piped.stderr.contains("is an SQLite database, read from a pipe or device"), "\(piped.stderr)")
        #expect(piped.stderr.contains("Pass the database file itself"), "\(piped.stderr)")
    }
}
