import Foundation
import PaywallTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hardening item 7: a reader of `--out` never sees files of two runs together. Each run is published
/// as `--out/runs/<run id>/` and shown through `--out/current` (switched by one `rename(2)`); the
/// top-level report names are links through `current`. One run at a time writes into a folder (a lock);
/// killed runs leave nothing that the next run does not remove; the run on show and the one before it
/// are kept, older ones removed.
struct ReportSetTests {
    let cli = try! CommandRunner()
    static let names = [
        "encounter_funnel.csv", "conversion_funnel.csv", "cohort_conversion.csv", "placement_summary.csv",
        "product_mix.csv", "data_quality.csv", "report.html",
    ]
    static let placements = ["onboarding", "settings", "upgrade"]

    /// Imports `count` impressions on day `day` (after 2025-11-29) spread over the placements.
    func addDay(_ day: Int, count: Int, scratch: TemporaryDirectory, db: String) async throws {
        let lines = (0..<count).map { i in
            Sample.shown(
                day * 1000 + i, source: Self.placements[(i + day) % Self.placements.count],
                at: 1_764_400_000_000 + Int64(day) * 86_400_000 + Int64(i) * 1000)
        }
        let file = try scratch.write("day\(day).ndjson", lines.joined(separator: "\n") + "\n")
        let result = try await cli.run(["import", file, "--db", db])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// The rows of a CSV reached through `path` (header first; CRLF lines); no quoting needed for these names.
    func rows(_ path: String) throws -> [[String]] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Checks that everything reachable from `out` is one run; returns that run's id (nil: none yet).
    @discardableResult
    func expectOneRun(_ out: String, nightly: Bool, _ label: String) throws -> String? {
        guard let run = resolved(out + "/current") else {
            for name in Self.names + ["run.json"] {
                #expect(resolved("\(out)/\(name)") == nil, "\(label): \(name) is reachable without a current run")
            }
            return nil
        }
        let runID = URL(fileURLWithPath: run).lastPathComponent
        #expect(URL(fileURLWithPath: run).deletingLastPathComponent().lastPathComponent == "runs", "\(label)")
        for name in Self.names + (nightly ? ["run.json"] : []) {
            #expect(
                resolved("\(out)/\(name)") == "\(run)/\(name)", "\(label): \(name) is not from the current run \(runID)"
            )
        }
        if nightly {
            let json =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/run.json")))
                as? [String: Any]
            #expect(json?["run_id"] as? String == runID, "\(label): run.json names another run")
        }
        // The summary's totals are the daily rows' sums, per placement (read through the top-level names)
        var daily: [String: (Int, Int)] = [:]
        for row in try rows(out + "/encounter_funnel.csv").dropFirst() {
            let sums = daily[row[1]] ?? (0, 0)
            daily[row[1]] = (sums.0 + Int(row[2])!, sums.1 + Int(row[3])!)
        }
        let summary = try rows(out + "/placement_summary.csv").dropFirst()
        #expect(summary.count == Self.placements.count && daily.count == Self.placements.count, "\(label): \(summary)")
        for row in summary {
            #expect(
                daily[row[0]]?.0 == Int(row[1]) && daily[row[0]]?.1 == Int(row[2]),
                "\(label): placement_summary \(row) disagrees with the daily rows \(String(describing: daily[row[0]]))")
        }
        return runID
    }

    func entries(_ folder: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }

    @Test func aNightlyKilledAtRandomMomentsNeverLeavesAMixedSetNorStagingFolders() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let out = scratch.path("out")
        let arguments = ["report", "--nightly", "--out", out, "--db", db, "--now", "2026-06-01T02:00:00Z", "--quiet"]
        try await addDay(0, count: 30, scratch: scratch, db: db)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(try await cli.run(arguments).status == 0)
        var duration = max(Int((clock.now - started) / .milliseconds(1)), 20)
        try expectOneRun(out, nightly: true, "first run")
        var generator = SystemRandomNumberGenerator()
        var killedMidway = 0
        // At least 40 rounds, and on until a quarter of the kills landed mid-run (the kill moments adapt
        // to the run's length on this machine; a loaded machine needs more rounds, not another check)
        var rounds = 0
        while rounds < 100 && (rounds < 40 || killedMidway < 10) {
            rounds += 1
            let round = rounds
            // Each run adds a day, so two runs' files never agree by chance.
            try await addDay(round, count: 12 + round % 7, scratch: scratch, db: db)
            let process = Process()
            process.executableURL = cli.executable
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...duration, using: &generator)))
            // Only a child still running is killed (a finished one's pid may already be reused).
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            // The kill moments spread over the whole run: the range shrinks while runs finish first.
            if process.terminationReason == .uncaughtSignal {
                killedMidway += 1
                duration = duration * 21 / 20
            } else {
                duration = max(10, duration * 4 / 5)
            }
            try expectOneRun(out, nightly: true, "after kill \(round)")
            let staging = entries(out + "/runs").filter { $0.hasPrefix(".partial") }
            #expect(staging.count <= 1, "after kill \(round): staging folders accumulate: \(staging)")
            #expect(
                entries(out + "/runs").filter { !$0.hasPrefix(".") }.count <= 3,
                "after kill \(round): \(entries(out + "/runs"))")
        }
        #expect(killedMidway >= 10, "only \(killedMidway) of \(rounds) kills landed while the run was going")
        // A run after the kills completes, shows every day and leaves only itself and the run before it
        let final = try await cli.run(arguments)
        #expect(final.status == 0, "\(final.stderr)")
        let runID = try expectOneRun(out, nightly: true, "final run")
        let kept = entries(out + "/runs").filter { $0 != ".lock" }.sorted()
        #expect(kept.count <= 2 && kept.contains(runID ?? "?") && !kept.contains { $0.hasPrefix(".") }, "\(kept)")
        let days = Set(try rows(out + "/encounter_funnel.csv").dropFirst().map { $0[0] })
        #expect(days.count == rounds + 1, "every imported day is in the final set")
        #expect(entries(scratch.url.path).filter { $0.contains("partial") }.isEmpty)
        #expect(entries(out).filter { $0.hasPrefix(".") }.isEmpty, "no temporary link left: \(entries(out))")
    }

    /// The children of `pid` (from `/proc`).
    func children(of pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The command line of process `pid` (from `/proc`; empty once it is gone).
    func commandLine(of pid: Int32) -> [String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The worst timing for a kill: every `rename(2)` of the nightly is slowed by 150 ms under strace, so the kills
    /// land in the publishing steps (a run folder renamed in, `current` switched, the clean-up).
    ///
    /// The kill moments follow the slowed run's length as measured on this machine (a calibration run
    /// first, then shorter after a kill that came too late, longer after one that landed), and rounds go
    /// on until enough kills landed mid-run: a loaded machine changes how long a run takes, not what is
    /// checked.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"),
            "needs strace (apt-get install -y strace)"))
    func aNightlyKilledWhileItsRenamesAreSlowedNeverLeavesAMixedSet() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let out = scratch.path("out")
        let arguments = ["report", "--nightly", "--out", out, "--db", db, "--now", "2026-06-01T02:00:00Z", "--quiet"]
        try await addDay(0, count: 20, scratch: scratch, db: db)
        #expect(try await cli.run(arguments).status == 0)
        /// Runs the nightly under strace; `killAfter` (microseconds after start) SIGKILLs the nightly itself
        /// (strace's child) from a thread of its own (inside the parallel suite the concurrency pool can be
        /// held by other tests for seconds). Returns the run's wall time in microseconds and whether the
        /// nightly died of the kill (strace re-raises its child's signal).
        func slowedRun(killAfter: Int?) throws -> (micros: Int, killed: Bool) {
            let tracer = Process()
            tracer.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
            tracer.arguments =
                [
                    "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
                    "-e", "inject=rename,renameat,renameat2:delay_exit=150000", cli.executable.path,
                ] + arguments
            tracer.standardOutput = FileHandle.nullDevice
            tracer.standardError = FileHandle.nullDevice
            let clock = ContinuousClock()
            let started = clock.now
            try tracer.run()
            if let killAfter {
                let tracerPID = tracer.processIdentifier
                Thread {
                    // strace forks a short-lived probe child before the traced one: the victim is the
                    // child that runs the CLI (after its exec)
                    var victim: Int32?
                    for _ in 0..<5_000 where victim == nil && tracer.isRunning {
                        victim = children(of: tracerPID).first { commandLine(of: $0).first == cli.executable.path }
                        if victim == nil { usleep(1_000) }
                    }
                    let waited = Int((clock.now - started) / .microseconds(1))
                    if killAfter > waited { usleep(UInt32(killAfter - waited)) }
                    if let victim, tracer.isRunning { kill(victim, SIGKILL) }
                }.start()
            }
            tracer.waitUntilExit()
            let micros = Int((clock.now - started) / .microseconds(1))
            return (micros, tracer.terminationReason == .uncaughtSignal && tracer.terminationStatus == SIGKILL)
        }
        try await addDay(1, count: 9, scratch: scratch, db: db)
        let calibration = try slowedRun(killAfter: nil)
        try expectOneRun(out, nightly: true, "after the calibration run")
        var length = max(calibration.micros, 50_000)
        var generator = SystemRandomNumberGenerator()
        var killedMidway = 0
        var round = 1
        while round < 60 && (round <= 12 || killedMidway < 6) {
            round += 1
            try await addDay(round, count: 8 + round % 5, scratch: scratch, db: db)
            let run = try slowedRun(killAfter: Int.random(in: length / 10...length * 9 / 10, using: &generator))
            if run.killed {
                killedMidway += 1
                length = max(length, run.micros) * 21 / 20
            } else {
                length = max(50_000, min(length, run.micros) * 4 / 5)
            }
            try expectOneRun(out, nightly: true, "after slowed kill \(round)")
            #expect(entries(out + "/runs").filter { $0.hasPrefix(".partial") }.count <= 1, "\(entries(out + "/runs"))")
            #expect(entries(out + "/runs").filter { !$0.hasPrefix(".") }.count <= 3, "\(entries(out + "/runs"))")
        }
        #expect(killedMidway >= 6, "only \(killedMidway) of \(round - 1) kills landed while the run was going")
        #expect(try await cli.run(arguments).status == 0)
        try expectOneRun(out, nightly: true, "final run")
        #expect(entries(out + "/runs").filter { $0 != ".lock" }.count <= 2, "\(entries(out + "/runs"))")
    }

    @Test func rangeReportsUseTheSameLayoutAndKeepTheRunBeforeThem() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let out = scratch.path("range")
        try await addDay(0, count: 10, scratch: scratch, db: db)
        var shown: [String] = []
        for round in 1...4 {
            try await addDay(round, count: 5, scratch: scratch, db: db)
            let result = try await cli.run([
                "report", "--from", "2025-11-29", "--to", "2025-12-20", "--out", out, "--db", db,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            shown.append(try #require(try expectOneRun(out, nightly: false, "range \(round)")))
        }
        #expect(Set(shown).count == 4, "every run has its own id: \(shown)")
        #expect(shown == shown.sorted(), "run ids sort in run order: \(shown)")
        #expect(
            entries(out + "/runs").sorted() == [".lock"] + Array(shown.suffix(2)),
            "the current run and the one before it are kept")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/current") == "runs/\(shown[3])")
    }

    @Test func stagingLeftByKilledRunsOfThisAndTheOldLayoutIsRemovedByTheNextRun() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let out = scratch.path("out")
        try await addDay(0, count: 10, scratch: scratch, db: db)
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/bin/true")
        try victim.run()
        victim.waitUntilExit()
        let dead = victim.processIdentifier
        for folder in [
            "out/runs/.partial-\(dead)-0/x", "out/runs/.partial-\(dead)-3/x", ".out.partial-\(dead)-0/x",
            ".out.partial-\(dead)-1/x", "out/runs/.partial-1-0/x",
        ] {
            try FileManager.default.createDirectory(atPath: scratch.path(folder), withIntermediateDirectories: true)
        }
        // An old-layout report set at the top level gives way to the links
        try scratch.write("out/placement_summary.csv", "placement,presentations\nold,1\n")
        let result = try await cli.run([
            "report", "--nightly", "--out", out, "--db", db, "--now", "2026-06-01T02:00:00Z",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(entries(scratch.url.path).filter { $0.contains("partial") }.isEmpty, "\(entries(scratch.url.path))")
        // Under runs/ the folder's lock says no other run is going: every staging folder there is a leftover.
        #expect(entries(out + "/runs").filter { $0.hasPrefix(".") } == [".lock"], "\(entries(out + "/runs"))")
        try expectOneRun(out, nightly: true, "after the old layout")
    }

    @Test func aSecondRunIntoTheSameFolderWhileOneIsWritingExits75AndChangesNothing() async throws {
        let scratch = TemporaryDirectory(prefix: "security")
        let db = scratch.path("events.sqlite")
        let out = scratch.path("out")
        try await addDay(0, count: 10, scratch: scratch, db: db)
        #expect(
            try await cli.run(["report", "--from", "2025-11-29", "--to", "2025-11-30", "--out", out, "--db", db]).status
                == 0)
        let shown = try FileManager.default.destinationOfSymbolicLink(atPath: out + "/current")
        // This process holds the folder's lock, as a run in progress does
        let lock = open(out + "/runs/.lock", O_RDWR)
        #expect(lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) == 0)
        defer { close(lock) }
        for arguments in [["report", "--from", "2025-11-29", "--to", "2025-11-30"], ["report", "--nightly"]] {
            let result = try await cli.run(arguments + ["--out", out, "--db", db])
            #expect(result.status == 75, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("another report run is writing into \(out)"), "\(result.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/current") == shown)
            #expect(entries(out + "/runs").filter { $0.hasPrefix(".partial") }.isEmpty)
        }
    }
}
