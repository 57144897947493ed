import Foundation
import PaywallSQLite
import PaywallTestSupport
import Testing

/// Hardening item 13: a store this user cannot write (a 0400 file, a read-only folder, `chattr +i`)
/// is read by the commands that only read (stats, export events, quarantine, dead-letters), which
/// leave nothing beside it (no -wal, no -shm) and the file as it was; the commands that write
/// (report, export funnels, forward, import) refuse it with 73, also leaving nothing behind.
/// As root the commands run as `nobody` through `setpriv` (mode bits do not hold root back).
struct ReadOnlyStoreTests {
    let cli = try! CommandRunner()
    static let nobody: UInt32 = 65534

    /// How the store is made read-only.
    enum Kind: String, CaseIterable {
        /// A 0400 file in a folder the user can write.
        case fileMode0400
        /// A writable file in a folder the user cannot write.
        case readOnlyFolder
        /// `chattr +i` on the file, run as root.
        case immutableAttribute
    }

    /// Runs the binary as an unprivileged user (`nobody` through setpriv when the tests run as root).
    func runUnprivileged(_ arguments: [String], asRoot: Bool = false) async throws -> CommandRunner.Output {
        let environment = ["REVENUECAT_API_KEY": "appl_ReadOnlyStore0123456789"]
        if getuid() != 0 || asRoot { return try await cli.run(arguments, environment: environment) }
        let setpriv = CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        return try await setpriv.run(
            ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", cli.executable.path] + arguments,
            environment: environment)
    }

    func chattr(_ flag: String, _ path: String) throws {
        let output = try CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/chattr")).runBlocking([flag, path])
        try #require(output.status == 0, "chattr \(flag) failed: \(output.stderr)")
    }

    /// A store with 5 events, one quarantined line and one dead letter, made read-only as `kind`
    /// says; returns the store's path and a folder the user may write exports into.
    func readOnlyStore(_ kind: Kind, in scratch: TemporaryDirectory) async throws -> (db: String, out: String) {
        let folder = scratch.path("store")
        let out = scratch.path("out")
        let db = folder + "/events.sqlite"
        let input = try scratch.write(
            "in.ndjson", ((1...5).map { Sample.shown($0) } + ["not json"]).joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 65, "one line quarantined")
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.enqueue(.status(400))
        #expect(
            try await cli.run(
                ["forward", "--db", db, "--endpoint", standIn.baseURL.absoluteString],
                environment: ["REVENUECAT_API_KEY": "appl_ReadOnlyStore0123456789"]
            ).status == 65)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for path in [scratch.url.path, folder, out] { chmod(path, 0o755) }
        let rootRun = getuid() == 0
        let user = rootRun && kind != .immutableAttribute ? Self.nobody : getuid()
        chown(out, user, user)
        switch kind {
        case .fileMode0400:
            chown(folder, user, user)
            chown(db, user, user)
            chmod(db, 0o400)
        case .readOnlyFolder:
            chown(db, user, user)
            if !rootRun { chmod(folder, 0o555) }  // as root the folder stays root's, and nobody cannot write it
        case .immutableAttribute:
            try chattr("+i", db)
        }
        return (db, out)
    }

    /// The folder's entries with sizes and modification times, and the store's bytes.
    func snapshot(_ db: String) throws -> (entries: [String], bytes: Data) {
        let folder = URL(fileURLWithPath: db).deletingLastPathComponent().path
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
            return "\(name) \(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0)"
        }
        return (entries, try Data(contentsOf: URL(fileURLWithPath: db)))
    }

    @Test(arguments: Kind.allCases)
    func readingCommandsReadItAndLeaveNothingBehind(kind: Kind) async throws {
        // Given a read-only store
        let scratch = TemporaryDirectory(prefix: "cli")
        let (db, out) = try await readOnlyStore(kind, in: scratch)
        defer { if kind == .immutableAttribute { try? chattr("-i", db) } }
        let before = try snapshot(db)
        #expect(before.entries.count == 1, "only the store: \(before.entries)")
        let asRoot = kind == .immutableAttribute

        // When every reading command runs on it as a user who cannot write it
        let stats = try await runUnprivileged(["stats", "--db", db], asRoot: asRoot)
        var exports: [String: CommandRunner.Output] = [:]
        for kind in ["events", "quarantine", "dead-letters"] {
            exports[kind] = try await runUnprivileged(["export", kind, "--out", "-", "--db", db], asRoot: asRoot)
            let toFile = try await runUnprivileged(
                ["export", kind, "--out", "\(out)/\(kind).csv", "--db", db], asRoot: asRoot)
            #expect(toFile.status == 0, "\(kind): \(toFile.stderr)")
        }

        // Then each succeeds with the store's content
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(
            stats.stdout.contains("Events: 5") && stats.stdout.contains("Quarantined: 1")
                && stats.stdout.contains("Dead letters: 5 open"), "\(stats.stdout)")
        #expect(
            exports["events"]?.status == 0 && exports["events"]?.stdout.split(separator: "\r\n").count == 6,
            "\(exports["events"]?.stderr ?? "")")
        #expect(exports["quarantine"]?.stdout.contains("not json") == true)
        #expect(exports["dead-letters"]?.stdout.split(separator: "\r\n").count == 6)
        // And the folder holds exactly what it held (no -wal, no -shm), the store byte for byte and mtime as it was
        let after = try snapshot(db)
        #expect(after.entries == before.entries)
        #expect(after.bytes == before.bytes)
    }

    @Test(arguments: Kind.allCases)
    func importingFromItLeavesNothingBesideIt(kind: Kind) async throws {
        // Given a read-only store used as the source of an import into a new store
        let scratch = TemporaryDirectory(prefix: "cli")
        let (db, out) = try await readOnlyStore(kind, in: scratch)
        defer { if kind == .immutableAttribute { try? chattr("-i", db) } }
        let before = try snapshot(db)
        // When it is imported
        let result = try await runUnprivileged(
            ["import", db, "--db", "\(out)/copy.sqlite"], asRoot: kind == .immutableAttribute)
        // Then its events arrive and nothing was created beside it (read-only mode used to leave -wal and -shm)
        #expect(result.status == 0 && result.stdout.hasPrefix("imported 5,"), "\(result.status) \(result.stderr)")
        let after = try snapshot(db)
        #expect(after.entries == before.entries)
        #expect(after.bytes == before.bytes)
    }

    /// A clean source: a store whose `-wal` is absent or empty.
    enum CleanSource: String, CaseIterable {
        /// Closed cleanly: nothing beside the file.
        case closed
        /// An empty `-wal` and an `-shm` left beside it (a writer killed after a truncating checkpoint).
        case emptyWALAndSHMLeftBeside
    }

    /// Makes a writable store of 4 events at `source` (in a folder of its own), as `kind` says.
    func cleanSource(_ kind: CleanSource, at source: String, scratch: TemporaryDirectory) async throws {
        let input = try scratch.write("in.ndjson", (1...4).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", source]).status == 0)
        guard kind == .emptyWALAndSHMLeftBeside else { return }
        let kept = scratch.path("kept")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        do {
            let writer = try Connection(path: source)
            try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for suffix in ["-wal", "-shm"] {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: kept + "/x" + suffix)
            }
        }
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: source + suffix)
            try FileManager.default.copyItem(atPath: kept + "/x" + suffix, toPath: source + suffix)
            // An old modification time, so that any write would show whatever the clock's resolution
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: source + suffix)
        }
        #expect(FileManager.default.fileExists(atPath: source + "-shm"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: source + "-wal")).isEmpty)
    }

    @Test(arguments: CleanSource.allCases)
    func importingFromAWritableStoreLeavesNothingBesideItEither(kind: CleanSource) async throws {
        // Given a clean writable store (its -wal absent or empty), in a folder of its own
        let scratch = TemporaryDirectory(prefix: "cli")
        let folder = scratch.path("source")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = folder + "/source.sqlite"
        try await cleanSource(kind, at: source, scratch: scratch)
        let before = try snapshot(source)
        #expect(before.entries.count == (kind == .closed ? 1 : 3), "\(before.entries)")
        // When it is imported into another store
        let other = TemporaryDirectory(prefix: "cli")
        let result = try await cli.run(["import", source, "--db", other.path("copy.sqlite")])
        // Then its events arrive, and it was opened immutable: the folder holds exactly what it held,
        // every file with its size and modification time (an -shm left there is neither read nor
        // written), and the store byte for byte
        #expect(result.status == 0 && result.stdout.hasPrefix("imported 4,"), "\(result.status) \(result.stderr)")
        let after = try snapshot(source)
        #expect(after.entries == before.entries)
        #expect(after.bytes == before.bytes)
    }

    @Test func importingFromAStoreWithFramesInItsWALImportsThemAndLeavesTheStoreIntact() async throws {
        // Given a store whose writer is still open, with 4 of its 8 events only in its -wal
        let scratch = TemporaryDirectory(prefix: "cli")
        let source = scratch.path("source.sqlite")
        let first = try scratch.write("first.ndjson", (1...4).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        let second = try scratch.write("second.ndjson", (5...8).map { Sample.shown($0) }.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", first, "--db", source]).status == 0)
        let writer = try Connection(path: source)
        #expect(try await cli.run(["import", second, "--db", source]).status == 0)
        let main = try Data(contentsOf: URL(fileURLWithPath: source))
        let wal = try Data(contentsOf: URL(fileURLWithPath: source + "-wal"))
        try #require(!wal.isEmpty, "the second import's commits are in the -wal")
        #expect(
            try Connection(path: source, options: .immutableSnapshot).scalar("SELECT count(*) FROM events")?.int64 == 4)
        // When it is imported into another store
        let other = TemporaryDirectory(prefix: "cli")
        let result = try await cli.run(["import", source, "--db", other.path("copy.sqlite")])
        // Then all 8 events arrive (the -wal was read), the main file and the -wal are byte for byte as
        // they were, and the store is whole: its writer still reads and writes it
        #expect(result.status == 0 && result.stdout.hasPrefix("imported 8,"), "\(result.status) \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == main)
        #expect(try Data(contentsOf: URL(fileURLWithPath: source + "-wal")) == wal)
        #expect(try writer.scalar("PRAGMA integrity_check")?.string == "ok")
        #expect(try writer.scalar("SELECT count(*) FROM events")?.int64 == 8)
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(
            try Connection(path: source, options: .immutableSnapshot).scalar("SELECT count(*) FROM events")?.int64 == 8)
    }

    @Test(arguments: Kind.allCases)
    func writingCommandsRefuseItWith73AndLeaveNothingBehind(kind: Kind) async throws {
        // Given a read-only store
        let scratch = TemporaryDirectory(prefix: "cli")
        let (db, out) = try await readOnlyStore(kind, in: scratch)
        defer { if kind == .immutableAttribute { try? chattr("-i", db) } }
        let before = try snapshot(db)
        let asRoot = kind == .immutableAttribute
        let commands: [[String]] = [
            ["report", "--from", "2025-11-28", "--to", "2025-11-30", "--out", "\(out)/range"],
            ["report", "--nightly", "--out", "\(out)/nightly"],
            ["export", "funnels", "--out", "-"],
            ["forward", "--endpoint", "http://127.0.0.1:9"],
            ["import", "-"],
        ]
        for arguments in commands {
            // When a command that writes to the store runs on it
            let result = try await runUnprivileged(arguments + ["--db", db], asRoot: asRoot)
            // Then it exits 73 saying the store is read-only and what the command would write
            #expect(result.status == 73, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is read-only for this user"), "\(arguments): \(result.stderr)")
        }
        // And nothing was left beside the store, which is as it was
        let after = try snapshot(db)
        #expect(after.entries == before.entries)
        #expect(after.bytes == before.bytes)
    }
}
