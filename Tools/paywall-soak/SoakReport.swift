/// What the loops did.
struct SoakTally: Sendable {
    var recorderKills = 0
    var acknowledged: [String] = []
    var forwarderKills = 0
    var forwardExits: [String: Int] = [:]
    var nightlyExits: [Int32: Int] = [:]
    var failures: [String] = []
}

/// The figures and verdict of a soak run.
struct SoakReport {
    var tally: SoakTally
    var faults: [String: Int]
    var checks: [(String, String)]
    var failures: [String]
    var loopSeconds = 0.0
    var totalSeconds = 0.0

    init(tally: SoakTally, faults: [String: Int], checks: [(String, String)], failures: [String]) {
        self.tally = tally
        self.faults = faults
        self.checks = checks
        self.failures = tally.failures + failures
    }

    var summary: String {
        func histogram<K: Comparable>(_ values: [K: Int]) -> String {
            values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        }
        var lines = [
            "soak: loops ran \(Int(loopSeconds)) s, total \(Int(totalSeconds)) s",
            "recorder: \(tally.recorderKills) processes SIGKILLed, \(tally.acknowledged.count) events acknowledged",
            "forwarding: \(tally.forwarderKills) processes SIGKILLed; exits (137 = SIGKILLed): \(histogram(tally.forwardExits))",
            "nightly report exits: \(histogram(tally.nightlyExits))",
            "stand-in answers: \(histogram(faults))",
        ]
        lines += checks.map { "\($0.0): \($0.1)" }
        lines.append(failures.isEmpty ? "soak: PASSED" : "soak: FAILED\n  " + failures.joined(separator: "\n  "))
        return lines.joined(separator: "\n")
    }
}
