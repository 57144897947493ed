// The fleet test driver (not shipped to users): a collector (`paywall-analytics serve`) and app
// installs (`paywall-fleet-install`, the facade as an app uses it) on 127.0.0.1, SIGKILLed at random
// and restarted; then every install uploads what it holds and the checks run (FleetChecks).
// `scripts/fleet-soak` builds and runs it; FleetTests runs a short one.
//
//   paywall-fleet run [--minutes M] [--installs N] [--kills K] [--seed S] --work DIR
//   paywall-fleet check --work DIR        the checks again, on a finished run's folder
import Foundation

FleetChildren.killAllOnTermination()
let arguments = Array(CommandLine.arguments.dropFirst())
func usage(_ problem: String) -> Never {
    FileHandle.standardError.write(
        Data(
            """
            paywall-fleet: \(problem)
            usage: paywall-fleet run [--minutes M] [--installs N] [--kills K] [--seed S] --work DIR
                   paywall-fleet check --work DIR

            """.utf8))
    exit(64)
}
func value(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
guard let command = arguments.first else { usage("name a command: run or check") }
guard let work = value("--work") else { usage("--work DIR is required (the run's folder; it is replaced)") }
let folder = URL(fileURLWithPath: work).standardizedFileURL.path
let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

switch command {
case "run":
    guard let minutes = Double(value("--minutes") ?? "1"), minutes >= 0,
        let installs = Int(value("--installs") ?? "20"), installs > 0,
        let kills = Int(value("--kills") ?? "50"), kills >= 0,
        let seed = UInt64(value("--seed") ?? String(UInt64(Date().timeIntervalSince1970)))
    else {
        usage("--minutes, --installs, --kills and --seed take non-negative numbers (installs at least 1)")
    }
    let fleet = Fleet(
        settings: Fleet.Settings(minutes: minutes, installs: installs, kills: kills, folder: folder, seed: seed))
    do {
        let tally = try fleet.run()
        FleetTally.say(tally.summary)
        exit(tally.failures.isEmpty ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("fleet: FAILURE \(error)\n".utf8))
        exit(1)
    }
case "check":
    var checks = FleetChecks(folder: folder, cli: binaries.appendingPathComponent("paywall-analytics"), writeKey: nil)
    let failures = checks.run()
    var tally = FleetTally()
    tally.figures = checks.figures
    tally.failures = failures
    FleetTally.say(tally.summary)
    exit(failures.isEmpty ? 0 : 1)
default:
    usage("unknown command '\(command)'; use run or check")
}
