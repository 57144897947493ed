// Benchmarks, run in release: `swift run -c release paywall-bench <name> [options]`.
import Foundation

/// Every benchmark `all` runs, in order (the quick ones first).
let everyBenchmark = ["validator", "recorder", "import", "forwarder", "report", "collector", "upload", "webhook"]

/// Runs one benchmark with its options.
func runBenchmark(_ name: String, _ arguments: [String]) async throws {
    BenchTargets.begin(name)
    switch name {
    case "forwarder": await ForwarderBench.run(arguments)
    case "recorder": try await RecorderBench.run(arguments)
    case "import": try ImportBench.run(arguments)
    case "validator": ValidatorBench.run(arguments)
    case "report": try ReportBench.run(arguments)
    case "collector": try CollectorBench.run(arguments)
    case "upload": try await UploadBench.run(arguments)
    case "webhook": try WebhookBench.run(arguments)
    default: usage()
    }
}

/// Prints the usage to standard error and exits 64, or (for `--help`) to standard output and exits 0.
func usage(help: Bool = false) -> Never {
    (help ? FileHandle.standardOutput : FileHandle.standardError).write(
        Data(
            """
            usage: paywall-bench <benchmark> [options] [--check] [--targets PATH]
              all                     every benchmark below with its defaults, one after the other
              forwarder [--count N] [--outbox memory|sqlite|both]
              recorder [--events N]   record latency, recorder ingest vs a bare INSERT loop
              import [--events N] [--ids ordered|random] [--variants | --pick 5,6]
                                      NDJSON import vs sqlite3 .import --csv, time-ordered and random ids; peak RSS
              import --key-experiment [--events N]
                                      the id index alone: text, 16-byte BLOB, index built after
              validator [--events N]  NDJSON lines parsed and validated per second
              report [--events N]     reports (full, incremental nightly) vs DuckDB; export vs sqlite3 -csv; peak RSS
              collector [--seconds 30] [--connections 64] [--store-events N] [--phase-seconds S] [--only plain|sustained]
                                      serve under wrk (plain, gzip) vs import and nginx answering 204; p50, p99, peak RSS;
                                      then sustained load on an N-event store (1,000,000) with a full report running:
                                      p99 and WAL size per phase
              upload [--events N]     the uploader draining N stored events (default 200,000) into serve, plain vs gzip
              webhook [--seconds 10] [--connections 8]
                                      RevenueCat webhooks stored per second vs /v1/events with one event per request
              report nightly [--events N] [--prepared DIR]
                                      only the nightly run after one more day vs the full recompute
              report subscriptions [--events N]
                                      reports with 10 % subscription events vs without; their nightly vs its recompute
            --check          print every target of the benchmarks run beside its value; exit 1 if one is missed
            --targets PATH   the targets file (default: Tools/paywall-bench/targets.json of this checkout)

            """.utf8))
    exit(help ? 0 : 64)
}

var benchArguments = Array(CommandLine.arguments.dropFirst())
if benchArguments.contains("--help") || benchArguments.contains("-h") { usage(help: true) }
let check = benchArguments.contains("--check")
benchArguments.removeAll { $0 == "--check" }
var targetsPath: String?
if let index = benchArguments.firstIndex(of: "--targets") {
    guard index + 1 < benchArguments.count else { usage() }
    targetsPath = benchArguments[index + 1]
    benchArguments.removeSubrange(index...(index + 1))
}
guard let name = benchArguments.first else { usage() }
do {
    try BenchTargets.load(path: targetsPath)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(66)
}
if name != "all", let problem = BenchOptions.problem(benchmark: name, Array(benchArguments.dropFirst())) {
    FileHandle.standardError.write(Data("Error: \(problem) (paywall-bench --help lists them)\n".utf8))
    exit(64)
}
let names = name == "all" ? everyBenchmark : [name]
if name == "all", benchArguments.count > 1 {
    FileHandle.standardError.write(Data("Error: all takes no benchmark options (only --check, --targets)\n".utf8))
    exit(64)
}
for benchmark in names {
    if names.count > 1 { print("\n== paywall-bench \(benchmark)") }
    try await runBenchmark(benchmark, Array(benchArguments.dropFirst()))
}
if check, !BenchTargets.check(names, requireAll: name == "all" || benchArguments.count == 1) { exit(1) }
