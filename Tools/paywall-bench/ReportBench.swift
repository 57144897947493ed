import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `paywall-bench report`: a generated dataset (default 10M events over 30 days), the full report
/// next to DuckDB (from the exported CSV and from a loaded table), a nightly run after one more day
/// against the full recompute (the first nightly run on a copy of the store made before any report), peak RSS of report and export, and `export events` against `sqlite3 -csv`.
///
/// Each measured operation runs in a child process (`paywall-bench report child …`) that reports its
/// own wall time and peak resident memory.
enum ReportBench {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_793_491_200_000  // 2026-11-01T00:00:00Z

    static func run(_ arguments: [String]) throws {
        if arguments.first == "child" { return try ReportBenchChild.run(Array(arguments.dropFirst())) }
        if arguments.first == "nightly" { return try nightlyOnly(Array(arguments.dropFirst())) }
        if arguments.first == "subscriptions" { return try SubscriptionReportBench.run(Array(arguments.dropFirst())) }
        let count = BenchSupport.eventCount(arguments, default: 10_000_000)
        let days = 30
        let directory = try BenchSupport.scratch()
        let keep = arguments.contains("--keep")
        defer { if keep { log("kept \(directory.path)") } else { try? FileManager.default.removeItem(at: directory) } }
        let db = directory.appendingPathComponent("bench.sqlite").path
        let perDay = count / days
        var generator = ReportDataGenerator(seed: 42, start: start, eventsPerDay: perDay)
        let generateSeconds = try BenchSupport.seconds { try generator.append(days: days, to: db) }
        log(
            "generated \(generator.events) events, \(generator.presentations) presentations in \(fmt(generateSeconds)) s"
        )
        // The nightly job's own store, copied before any report ran: its first run is the full recompute.
        let nightlyDB = directory.appendingPathComponent("nightly.sqlite").path
        try FileManager.default.copyItem(atPath: db, toPath: nightlyDB)

        let to = ReportDate(year: 2026, month: 11, day: 30).description
        let full = try child(["report", db, directory.appendingPathComponent("full").path, "2026-11-01", to])
        log("full report (rollup from scratch + reports): \(fmt(full.seconds)) s, \(full.rssMB) MB")
        log("  stages: \(full.stageLine)")
        let warm = try child(["report", db, directory.appendingPathComponent("warm").path, "2026-11-01", to])
        log("report with rollup current: \(fmt(warm.seconds)) s, \(warm.rssMB) MB")
        let csv = directory.appendingPathComponent("events.csv").path
        // The export's event columns, context included (not the internal `seq`); the export also
        // writes two ISO time columns and the delivery state, which sqlite3 is not asked for.
        let query = "'SELECT \(EventColumn.list()) FROM events'"
        let (export, sqlite3) = try alternated(
            child: "export", db: db, output: csv, label: "export events",
            baseline: "sqlite3 -csv '\(db)' \(query)", baselineLabel: "sqlite3 -csv")
        // The NDJSON export against the same lines built by SQLite in its own shell (what the
        // export wrote before it built them in Swift): the files must be equal.
        let ndjson = directory.appendingPathComponent("events.ndjson").path
        let (exportNDJSON, sqliteJSON) = try alternated(
            child: "export-ndjson", db: db, output: ndjson, label: "export events --format ndjson",
            baseline: "sqlite3 '\(db)' \"\(Self.sqliteJSONQuery)\"", baselineLabel: "sqlite3 json_object lines")
        guard try shell("cmp -s '\(ndjson)' '\(ndjson).sqlite3'") == 0 else {
            throw BenchError("the NDJSON export differs from SQLite's json_object lines (\(ndjson))")
        }
        for file in [ndjson, ndjson + ".sqlite3", csv + ".sqlite3"] {
            try? FileManager.default.removeItem(atPath: file)
        }
        let duck = try duckdb(csv: csv, from: "2026-11-01", to: to)
        log("duckdb: \(duck)")

        let nightlyOut = directory.appendingPathComponent("nightly").path
        let recompute = try child(["nightly", nightlyDB, nightlyOut, "0"])
        log(
            "first nightly (full recompute: rollups and day partials from scratch): \(fmt(recompute.seconds)) s, \(recompute.rssMB) MB"
        )
        try generator.append(days: 1, to: nightlyDB)
        let nightly = try child(["nightly", nightlyDB, nightlyOut, "0"])
        log("nightly after one more day: \(fmt(nightly.seconds)) s, \(nightly.rssMB) MB")
        log("  stages: \(nightly.stageLine)")

        let duckCSV = duck["csv_seconds"] as? Double ?? .nan
        let duckTable = duck["table_seconds"] as? Double ?? .nan
        let rows = Double(generator.eventsBeforeLastAppend)
        BenchSupport.printTable(
            "paywall-bench report — \(generator.eventsBeforeLastAppend) events, \(days) days, UTC",
            [
                ["measure", "value", "target"],
                ["full report: rollup from scratch + 6 reports (s)", fmt(full.seconds), ""],
                ["report with rollups current (s)", fmt(warm.seconds), ""],
                ["DuckDB read_csv + same reports (s)", fmt(duckCSV), ""],
                ["DuckDB loaded table, query only (s)", fmt(duckTable), ""],
                ["full report / DuckDB-from-CSV", fmt(full.seconds / duckCSV), ""],
                ["current-rollup report / DuckDB-from-CSV", fmt(warm.seconds / duckCSV), ""],
                ["current-rollup report / DuckDB table", fmt(warm.seconds / duckTable), ""],
                ["first nightly = full recompute (s)", fmt(recompute.seconds), ""],
                ["nightly after +1 day (s)", fmt(nightly.seconds), ""],
                ["nightly / full recompute", String(format: "%.1f %%", 100 * nightly.seconds / recompute.seconds), ""],
                ["nightly / full report", String(format: "%.1f %%", 100 * nightly.seconds / full.seconds), ""],
                ["peak RSS report (MB)", "\(max(full.rssMB, warm.rssMB, recompute.rssMB, nightly.rssMB))", ""],
                ["peak RSS export (MB)", "\(export.rssMB)", ""],
                ["export events rows/s", String(format: "%.0f", rows / export.seconds), ""],
                ["sqlite3 -csv rows/s", String(format: "%.0f", rows / sqlite3), ""],
                ["export / sqlite3 -csv", fmt(sqlite3 / export.seconds), ""],
                ["export ndjson rows/s", String(format: "%.0f", rows / exportNDJSON.seconds), ""],
                ["export ndjson / sqlite3 json_object", fmt(sqliteJSON / exportNDJSON.seconds), ""],
            ])
    }

    /// `paywall-bench report nightly [--events N] [--prepared DIR]`: only the nightly ratio (full
    /// recompute, then one more day). With `--prepared DIR`, the stores are kept in `DIR`
    /// (`plus1.sqlite` and `plus1-out`: the state right before the measured nightly run) on the first
    /// call and reused by later calls, so the nightly run alone can be measured again and again.
    static func nightlyOnly(_ arguments: [String]) throws {
        let count = BenchSupport.eventCount(arguments, default: 10_000_000)
        let prepared = arguments.firstIndex(of: "--prepared").map { URL(fileURLWithPath: arguments[$0 + 1]) }
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("nightly.sqlite").path
        let out = directory.appendingPathComponent("nightly").path
        var recomputeSeconds: Double?
        if let prepared, FileManager.default.fileExists(atPath: prepared.appendingPathComponent("plus1.sqlite").path) {
            try FileManager.default.copyItem(atPath: prepared.appendingPathComponent("plus1.sqlite").path, toPath: db)
            try FileManager.default.copyItem(atPath: prepared.appendingPathComponent("plus1-out").path, toPath: out)
            recomputeSeconds = Double(
                try String(contentsOf: prepared.appendingPathComponent("recompute-seconds"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines))
        } else {
            var generator = ReportDataGenerator(seed: 42, start: start, eventsPerDay: count / 30)
            try generator.append(days: 30, to: db)
            let recompute = try child(["nightly", db, out, "0"])
            log("first nightly (full recompute): \(fmt(recompute.seconds)) s, \(recompute.rssMB) MB")
            log("  stages: \(recompute.stageLine)")
            recomputeSeconds = recompute.seconds
            try generator.append(days: 1, to: db)
            if let prepared {
                try FileManager.default.createDirectory(at: prepared, withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    atPath: db, toPath: prepared.appendingPathComponent("plus1.sqlite").path)
                try FileManager.default.copyItem(atPath: out, toPath: prepared.appendingPathComponent("plus1-out").path)
                try Data("\(recompute.seconds)\n".utf8).write(to: prepared.appendingPathComponent("recompute-seconds"))
            }
        }
        let nightly = try child(["nightly", db, out, "0"])
        log("nightly after one more day: \(fmt(nightly.seconds)) s, \(nightly.rssMB) MB")
        log("  stages: \(nightly.stageLine)")
        if let recomputeSeconds {
            let ratio = String(format: "%.1f %%", 100 * nightly.seconds / recomputeSeconds)
            let target = BenchTargets.measured("nightly / full recompute", ratio)
            log("nightly / full recompute: \(ratio) (target \(target?.text ?? "none") %)")
        }
    }

    struct Measurement {
        var seconds: Double
        var rssMB: Int
        /// A nightly run's stages, in order (wall and CPU seconds, peak memory so far).
        var stages: [ReportStage] = []

        /// The stages as one line: `name wall s (CPU s, peak MiB)`, in order.
        var stageLine: String {
            stages.map { "\($0.name) \(fmt($0.seconds)) s (CPU \(fmt($0.cpuSeconds)), peak \($0.peakMiB) MiB)" }
                .joined(separator: ", ")
        }
    }

    /// Runs the export `child` (writing `output`) and the shell command `baseline` (its standard
    /// output to `output.sqlite3`) twice each, alternated (ours, the baseline, ours, the baseline),
    /// every run from settled files; logs every time and returns the faster run of each side: the
    /// first read of a store the reports have just written took up to 3 s more system time than the
    /// next ones, whichever program came first. The last export's file is left in `output`.
    static func alternated(
        child name: String, db: String, output: String, label: String, baseline: String, baselineLabel: String
    ) throws -> (Measurement, Double) {
        var ours: [Measurement] = []
        var theirs: [Double] = []
        for _ in 0..<2 {
            try? FileManager.default.removeItem(atPath: output)
            ours.append(try child([name, db, output]))
            try? FileManager.default.removeItem(atPath: output + ".sqlite3")
            settle()
            theirs.append(
                try BenchSupport.seconds {
                    let status = try shell("\(baseline) > '\(output).sqlite3'")
                    precondition(status == 0, "\(baselineLabel) failed; apt-get install sqlite3")
                })
        }
        let fastest = ours.min { $0.seconds < $1.seconds }!
        log("\(label): \(ours.map { fmt($0.seconds) }.joined(separator: ", ")) s, \(fastest.rssMB) MB")
        log("\(baselineLabel): \(theirs.map(fmt).joined(separator: ", ")) s")
        return (fastest, theirs.min()!)
    }

    /// Writes the previous step's dirty pages out and waits 2 s, so their write-back is not billed
    /// to the next measured step.
    static func settle() {
        sync()
        Thread.sleep(forTimeInterval: 2)
    }

    /// Runs `paywall-bench report child …` and reads its "seconds rss_kb" line.
    static func child(_ arguments: [String]) throws -> Measurement {
        // Start every measured operation from settled files.
        settle()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["report", "child"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard process.terminationStatus == 0, parts.count == 2, let seconds = Double(parts[0]),
            let rss = Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchError("child \(arguments.first ?? "") failed with status \(process.terminationStatus)") }
        let stages = lines.dropFirst().compactMap { line -> ReportStage? in
            let fields = line.split(separator: "\t")
            guard fields.count == 5, fields[0] == "stage", let wall = Double(fields[2]), let cpu = Double(fields[3]),
                let peak = Int(fields[4])
            else { return nil }
            return ReportStage(name: String(fields[1]), seconds: wall, cpuSeconds: cpu, peakMiB: peak)
        }
        return Measurement(seconds: seconds, rssMB: rss / 1024, stages: stages)
    }

    static func duckdb(csv: String, from: String, to: String) throws -> [String: Any] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bench-duckdb-reports.py").path
        let process = Python.process([script, csv, from, to])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw BenchError("DuckDB baseline failed: \(Python.installAdvice)") }
        return json
    }

    /// SQLite's own NDJSON lines of every event, for its shell (double-quoted): what
    /// `export events --format ndjson` wrote when SQLite built them (`open_s` with 17 digits).
    static let sqliteJSONQuery =
        "SELECT json_patch('{}', json_object(\(Self.sqliteJSONMembers))) FROM events ORDER BY rowid"

    /// `'name', name, …` for every record column (`open_s` as 17-digit JSON).
    static let sqliteJSONMembers = EventColumn.record.map { column in
        column == .openS
            ? "'open_s', CASE WHEN open_s IS NULL THEN NULL ELSE json(printf('%!.17g', open_s)) END"
            : "'\(column.columnName)', \(column.columnName)"
    }
    .joined(separator: ", ")

    @discardableResult
    static func shell(_ command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func fmt(_ value: Double) -> String { String(format: "%.2f", value) }
    static func log(_ text: String) { FileHandle.standardError.write(Data("• \(text)\n".utf8)) }
}

/// A benchmark failure with a message.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
