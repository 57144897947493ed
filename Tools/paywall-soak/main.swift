// The soak test driver (not shipped to users): records, forwards to a RevenueCat stand-in with random
// faults and runs the nightly report in a loop, SIGKILLing the recording and forwarding processes at
// random moments; then checks that nothing acknowledged was lost or duplicated, every impression
// was delivered or dead-lettered, and the nightly outputs equal a full recompute. `scripts/soak`
// builds and runs it.
//
//   paywall-soak run MINUTES WORKDIR [SEED]   the soak (children are this binary and paywall-analytics)
//   paywall-soak record DB SEED               child: record presentations, print acknowledged ids per flush
import Foundation

let arguments = CommandLine.arguments
func usage() -> Never {
    FileHandle.standardError.write(
        Data("usage: paywall-soak run MINUTES WORKDIR [SEED] | paywall-soak record DB SEED\n".utf8))
    exit(64)
}
guard arguments.count >= 4 else { usage() }

switch arguments[1] {
case "record":
    await SoakRecorderChild.run(path: arguments[2], seed: UInt64(arguments[3]) ?? 1)
case "run":
    guard let minutes = Double(arguments[2]) else { usage() }
    let seed = arguments.count > 4 ? UInt64(arguments[4]) ?? 1 : UInt64(Date().timeIntervalSince1970)
    let soak = try Soak(minutes: minutes, folder: URL(fileURLWithPath: arguments[3]), seed: seed)
    let report = try await soak.run()
    print(report.summary)
    exit(report.failures.isEmpty ? 0 : 1)
default:
    usage()
}
