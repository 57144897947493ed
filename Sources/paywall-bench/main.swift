// Benchmarks, run in release: `swift run -c release paywall-bench <name> [options]`.
import Foundation

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "forwarder":
    await ForwarderBench.run(Array(benchArguments.dropFirst()))
case "recorder":
    try await RecorderBench.run(Array(benchArguments.dropFirst()))
case "import":
    try ImportBench.run(Array(benchArguments.dropFirst()))
case "validator":
    ValidatorBench.run(Array(benchArguments.dropFirst()))
case "report":
    try ReportBench.run(Array(benchArguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("""
        usage: paywall-bench <benchmark> [options]
          forwarder [--count N] [--outbox memory|sqlite|both]
          recorder [--events N]   record latency, recorder ingest vs a bare INSERT loop
          import [--events N] [--ids ordered|random] [--variants | --pick 5,6]
                                  NDJSON import vs sqlite3 .import --csv, time-ordered and random ids; peak RSS
          import --key-experiment [--events N]
                                  36-byte text vs 16-byte BLOB id, the key alone
          validator [--events N]  NDJSON lines parsed and validated per second
          report [--events N]     reports (full, incremental nightly) vs DuckDB; export vs sqlite3 -csv; peak RSS
          report nightly [--events N] [--prepared DIR]
                                  only the nightly run after one more day vs the full recompute

        """.utf8))
    exit(64)
}
