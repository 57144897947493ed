// Benchmarks, run in release: `swift run -c release paywall-bench <name> [options]`.
import Foundation

let benchArguments = Array(CommandLine.arguments.dropFirst())
switch benchArguments.first {
case "forwarder":
    await ForwarderBench.run(Array(benchArguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("usage: paywall-bench forwarder [--count N] [--outbox memory|sqlite|both]\n".utf8))
    exit(64)
}
