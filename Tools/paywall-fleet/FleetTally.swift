import Foundation

/// What a fleet run did and found.
struct FleetTally {
    var installKills = 0
    var collectorKills = 0
    var kills: Int { installKills + collectorKills }
    var killLoopSeconds: Double = 0
    var drainSeconds: Double = 0
    var totalSeconds: Double = 0
    var figures: [(String, String)] = []
    var failures: [String] = []

    /// Writes `text` and a newline to standard output at once (unbuffered, so progress shows in a log as it happens).
    static func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

    mutating func fail(_ failure: String) {
        FileHandle.standardError.write(Data("fleet: FAILURE \(failure)\n".utf8))
        failures.append(failure)
    }

    /// The lines printed at the end (the CI summary greps `^fleet:` and the figure names).
    var summary: String {
        var lines = [
            "kills: \(kills) SIGKILLs (\(installKills) installs, \(collectorKills) collector)",
            String(
                format: "time: %.0f s of kills, %.0f s of drain, %.0f s in all", killLoopSeconds, drainSeconds,
                totalSeconds),
        ]
        lines += figures.map { "\($0.0): \($0.1)" }
        lines += failures.map { "FAILED: \($0)" }
        lines.append(failures.isEmpty ? "fleet: every check passed" : "fleet: \(failures.count) checks FAILED")
        return lines.joined(separator: "\n")
    }
}
