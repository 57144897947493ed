import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `paywall-bench import`: NDJSON import through the validator and the store, next to the
/// `sqlite3` tool's `.import --csv` of the same rows into the same `events` table and index, for
/// time-ordered (UUIDv7) and random (UUIDv4) ids; each import runs in its own process, so its peak
/// resident memory is its own. `--variants` also times each measured idea (cache, transaction size,
/// checkpoints) on the same ids.
///
/// The baseline the ratios and targets use gives `sqlite3` the page cache the import itself sizes
/// (``ImportCache``): with SQLite's default 2 MB cache, random ids make almost every insert read and
/// spill a page of the id index, and `sqlite3` then measures the cache, not the import (1M random
/// ids: 26.4 s with the default cache, 6.1 s with the import's 60 MB). Below 5M events the table
/// also shows `sqlite3` with the default cache, for comparison with earlier figures.
enum ImportBench {
    enum IDs: String, CaseIterable { case ordered, random }

    /// One way of running `import`, for the per-idea measurements.
    struct Variant {
        var label: String
        /// `nil`: sized from the store (the default); 0: SQLite's own 2 MB.
        var cacheBytes: Int?
        var transactionEvents: Int
        /// Checkpoints on a thread of their own (the default) or inside the commits.
        var backgroundCheckpoints = true
    }

    static let shipped = Variant(
        label: "import (shipped: plain, sized cache, 100k/transaction or 1M past the cache, background checkpoints)",
        cacheBytes: nil, transactionEvents: 100_000)
    static let ideas: [Variant] = [
        Variant(
            label: "plain, sized cache, 100k/transaction, inline checkpoints", cacheBytes: nil,
            transactionEvents: 100_000, backgroundCheckpoints: false),
        Variant(label: "plain, 2 MB cache, 10k/transaction (before)", cacheBytes: 0, transactionEvents: 10_000),
        Variant(label: "plain, sized cache, 10k/transaction", cacheBytes: nil, transactionEvents: 10_000),
        Variant(label: "plain, sized cache, 100k/transaction", cacheBytes: nil, transactionEvents: 100_000),
    ]

    /// Alternated runs of the shipped import and of `sqlite3` below 5M events (one above: a 10M
    /// round takes minutes).
    static let rounds = 3

    static func run(_ arguments: [String]) throws {
        if arguments.first == "child" { return try child(Array(arguments.dropFirst())) }
        // `import data N ordered|random NDJSON CSV`: writes the benchmark's input and stops (for profiling).
        if arguments.first == "data", arguments.count == 5, let count = Int(arguments[1]) {
            return try ImportBenchData.write(
                count: count, randomIDs: arguments[2] == "random", ndjson: URL(fileURLWithPath: arguments[3]),
                csv: URL(fileURLWithPath: arguments[4]))
        }
        let count = BenchSupport.eventCount(arguments, default: 500_000)
        if arguments.contains("--key-experiment") {
            return try ImportKeyExperiment.run(
                count: count,
                cacheBytes: ImportCache.bytes(
                    storeBytes: 0,
                    inputBytes: Int64(count) * 300))
        }
        let kinds =
            arguments.firstIndex(of: "--ids").flatMap { index in
                index + 1 < arguments.count ? IDs(rawValue: arguments[index + 1]).map { [$0] } : nil
            } ?? IDs.allCases
        // `--variants`: every idea; `--pick 5,6`: those ideas (1-based, in the order of `ideas`).
        var picked = arguments.contains("--variants") ? ideas : []
        if let index = arguments.firstIndex(of: "--pick"), index + 1 < arguments.count {
            // Each number is 1 to ideas.count (BenchOptions checked them before the run).
            picked = arguments[index + 1].split(separator: ",").compactMap { Int($0) }.map { ideas[$0 - 1] }
        }
        for kind in kinds {
            try measure(count: count, ids: kind, variants: picked)
        }
    }

    static func measure(count: Int, ids: IDs, variants: [Variant]) throws {
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ndjson = directory.appendingPathComponent("events.ndjson")
        let csv = directory.appendingPathComponent("events.csv")
        try ImportBenchData.write(count: count, randomIDs: ids == .random, ndjson: ndjson, csv: csv)
        let size = (try? FileManager.default.attributesOfItem(atPath: ndjson.path)[.size] as? Int) ?? 0

        let cacheBytes = ImportCache.bytes(storeBytes: 0, inputBytes: Int64(size))
        // The shipped import and `sqlite3` with the same cache, alternated (ours, theirs, ours, …),
        // each from settled files; the ratio is the fastest run of each side, as the report
        // benchmark's export takes it. On a 2-core virtual machine one program's time moved by a
        // quarter between runs, and a single pair gave 1.18, 1.35 and 1.69 for one binary in a row.
        let rounds = count < 5_000_000 ? Self.rounds : 1
        var ourRuns: [Measurement] = []
        var theirRuns: [(seconds: Double, cpu: Double)] = []
        let shippedStore = directory.appendingPathComponent("import-0.sqlite")
        let sqlite3Store = directory.appendingPathComponent("sqlite3.sqlite")
        for round in 0..<rounds {
            if round > 0 {
                for store in [shippedStore, sqlite3Store] { BenchSupport.removeStore(store) }
            }
            ourRuns.append(try importChild(store: shippedStore, ndjson: ndjson, variant: shipped))
            theirRuns.append(try sqlite3Import(csv: csv, database: sqlite3Store, cacheBytes: cacheBytes))
        }
        let sqlite3 = theirRuns.min { $0.seconds < $1.seconds }!
        let shippedRun = ourRuns.min { $0.seconds < $1.seconds }!
        let listed = { (values: [Double]) in values.map { String(format: "%.2f", $0) }.joined(separator: ", ") }
        FileHandle.standardError.write(
            Data(
                ("• \(ids.rawValue) ids, \(rounds) alternated rounds: import \(listed(ourRuns.map(\.seconds))) s, "
                    + "sqlite3 \(listed(theirRuns.map(\.seconds))) s (the fastest of each makes the ratio)\n").utf8))
        let theirs = Double(count) / sqlite3.seconds
        var rows: [[String]] = [["measure", "events/s", "× sqlite3", "CPU s", "peak RSS MB", "store MB"]]
        rows.append([
            "sqlite3 .import --csv (same rows, same table and index, the import's \(cacheBytes >> 20) MiB page cache)",
            String(format: "%.0f", theirs), "1.00", String(format: "%.1f", sqlite3.cpu), "",
            "\(megabytes(sqlite3Store))",
        ])
        if count < 5_000_000 {
            let plainStore = directory.appendingPathComponent("sqlite3-default-cache.sqlite")
            let plain = try sqlite3Import(csv: csv, database: plainStore, cacheBytes: nil)
            rows.append([
                "sqlite3 .import --csv with SQLite's default 2 MB page cache",
                String(format: "%.0f", Double(count) / plain.seconds),
                String(format: "%.2f", sqlite3.seconds / plain.seconds),
                String(format: "%.1f", plain.cpu), "", "\(megabytes(plainStore))",
            ])
            try? FileManager.default.removeItem(at: plainStore)
        }
        var shippedRatio = 0.0
        var shippedRSS = 0
        for (offset, variant) in ([shipped] + variants).enumerated() {
            // The shipped import was measured above, in the alternated rounds; its store is the last round's.
            let store = offset == 0 ? shippedStore : directory.appendingPathComponent("import-\(offset).sqlite")
            let measured = offset == 0 ? shippedRun : try importChild(store: store, ndjson: ndjson, variant: variant)
            let ours = Double(count) / measured.seconds
            if offset == 0 {
                shippedRatio = ours / theirs
                shippedRSS = measured.rssMB
            }
            rows.append([
                variant.label, String(format: "%.0f", ours), String(format: "%.2f", ours / theirs),
                String(format: "%.1f", measured.cpu), "\(measured.rssMB)", "\(megabytes(store))",
            ])
            if offset > 0 { try? FileManager.default.removeItem(at: store) }
        }
        let target = ids == .ordered ? "≥ 1.5" : (count >= 5_000_000 ? "≥ 2.0" : "≥ 1.5")
        BenchSupport.printTable(
            "paywall-bench import — \(count) events, \(ids == .ordered ? "time-ordered UUIDv7" : "random UUIDv4") ids "
                + "(\(size / 1_000_000) MB of NDJSON); target import / sqlite3 \(target), peak RSS ≤ 300 MB", rows)
        print("")
        // The shipped path's figures against targets.json (one label per kind of id).
        // Random ids from 5M events on carry the higher bound (≥ 2.0, where sqlite3 degrades).
        let ratioLabel =
            ids == .ordered
            ? "import / sqlite3 with the same cache (time-ordered ids)"
            : (count >= 5_000_000
                ? "import / sqlite3 with the same cache (random ids, 10M)"
                : "import / sqlite3 with the same cache (random ids)")
        BenchSupport.printTable(
            "paywall-bench import — targets",
            [
                ["measure", "value", "target"],
                [ratioLabel, String(format: "%.2f", shippedRatio), ""],
                ["import peak RSS MB", "\(shippedRSS)", ""],
            ])
        print("")
    }

    /// The size of a store after a checkpoint (its file and WAL), MB.
    static func megabytes(_ store: URL) -> Int {
        if let connection = try? Connection(path: store.path) {
            try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let size = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        return (size(store.path) + size(store.path + "-wal")) / 1_000_000
    }

    struct Measurement {
        var seconds: Double
        var rssMB: Int
        /// User + system CPU seconds of the child (less sensitive than wall time to a shared machine).
        var cpu: Double
    }

    /// User + system CPU seconds of the children waited for so far.
    static func childrenCPU() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
            getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        let time = { (value: timeval) in Double(value.tv_sec) + Double(value.tv_usec) / 1e6 }
        return time(usage.ru_utime) + time(usage.ru_stime)
    }

    /// Runs `paywall-bench import child STORE NDJSON CACHE TRANSACTION CHECKPOINTS` and reads its "seconds rss_kb" line.
    static func importChild(store: URL, ndjson: URL, variant: Variant) throws -> Measurement {
        sync()
        Thread.sleep(forTimeInterval: 1)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [
            "import", "child", store.path, ndjson.path, variant.cacheBytes.map(String.init) ?? "auto",
            "\(variant.transactionEvents)",
            variant.backgroundCheckpoints ? "background" : "inline",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        let cpuBefore = childrenCPU()
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let cpu = childrenCPU() - cpuBefore
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard process.terminationStatus == 0, parts.count == 2, let seconds = Double(parts[0]),
            let rss = Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw BenchError("import child failed with status \(process.terminationStatus)") }
        return Measurement(seconds: seconds, rssMB: rss / 1024, cpu: cpu)
    }

    /// The child: imports NDJSON into a new store with the given cache, transaction size and
    /// checkpoints (`STORE NDJSON CACHE|auto TRANSACTION background|inline [LARGE-STORE-TRANSACTION]`);
    /// prints "<seconds> <peak RSS in KiB>".
    static func child(_ arguments: [String]) throws {
        let options = ImportOptions(
            cacheBytes: Int(arguments[2]),
            transactionEvents: Int(arguments[3]) ?? 100_000,
            largeStoreTransactionEvents: arguments.count > 5 ? Int(arguments[5]) ?? 1_000_000 : 1_000_000,
            backgroundCheckpoints: arguments.count < 5 || arguments[4] != "inline")
        var result = ImportResult()
        // From opening the store to closing it: closing checkpoints what is still in the WAL, which
        // `sqlite3 .import` pays inside its timing too.
        var importSeconds = 0.0
        let seconds = try BenchSupport.seconds {
            let store = try EventStore(path: arguments[0], now: .system)
            importSeconds = try BenchSupport.seconds {
                result = try Importer(store: store, options: options).importNDJSON(path: arguments[1])
            }
        }
        FileHandle.standardError.write(
            Data(String(format: "import %.3f s, closing %.3f s\n", importSeconds, seconds - importSeconds).utf8))
        precondition(result.quarantined == 0 && result.conflicts == 0, "import refused events: \(result)")
        print(String(format: "%.3f", seconds), BenchSupport.peakResidentKiB())
    }

    /// Times `sqlite3 DB ".import --csv FILE events"` into the store's `events` layout as migration 8
    /// made it (`id TEXT NOT NULL UNIQUE`, `seq INTEGER PRIMARY KEY`, given in the CSV; the store now
    /// keeps the same unique index under a name of its own, which `sqlite3` fills the same way) without
    /// STRICT (the CLI imports empty CSV fields as '' which a STRICT REAL column refuses), WAL,
    /// synchronous NORMAL. The import's first transaction into an empty store may build its index
    /// after the rows; `sqlite3 .import` keeps it up row by row, as a plain import does.
    static func sqlite3Import(csv: URL, database: URL, cacheBytes: Int?) throws -> (seconds: Double, cpu: Double) {
        let setup = try Connection(path: database.path)
        try setup.execute(
            """
            CREATE TABLE events (
              id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, occurred_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
              user_id TEXT NOT NULL, session_id TEXT, catalog_version INTEGER NOT NULL, pw_id TEXT NOT NULL,
              source TEXT NOT NULL, offering_id TEXT, placement_id TEXT, product TEXT, result TEXT, via TEXT, open_s REAL,
              seq INTEGER PRIMARY KEY)
            """)
        sync()
        Thread.sleep(forTimeInterval: 1)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["sqlite3", database.path, "PRAGMA journal_mode = WAL;", "PRAGMA synchronous = NORMAL;"]
            + (cacheBytes.map { bytes in ["PRAGMA cache_size = -\(bytes / 1_024);"] } ?? [])
            + [".import --csv \(csv.path) events"]
        process.standardOutput = FileHandle.nullDevice
        let cpuBefore = childrenCPU()
        let seconds = try BenchSupport.seconds {
            try process.run()
            process.waitUntilExit()
        }
        guard process.terminationStatus == 0 else {
            throw BenchError(
                "sqlite3 .import failed (status \(process.terminationStatus)); install the sqlite3 command-line tool")
        }
        let imported = try setup.scalar("SELECT count(*) FROM events")?.int64 ?? 0
        precondition(imported > 0, "sqlite3 imported nothing")
        return (seconds, childrenCPU() - cpuBefore)
    }
}
