import Foundation

/// One install of the fleet: its store file, who forwards its impressions, and the current
/// `paywall-fleet-install` process (a new one, with a new seed, after every kill).
final class FleetMember: @unchecked Sendable {
    // @unchecked: only the driver's thread starts, kills and reads it.
    let index: Int
    let party: String
    let database: String
    private let binary: URL
    private let logs: String
    private let seed: UInt64
    private(set) var child: FleetChild?
    private(set) var starts = 0

    /// The store file of install `index`; its name says who forwards (`fleet check` reads it back).
    static func databaseName(index: Int, party: String) -> String {
        "install-\(String(format: "%02d", index))-\(party).sqlite"
    }

    /// The party in a store file's name, if it is an install's.
    static func party(ofDatabase name: String) -> String? {
        guard name.hasPrefix("install-"), name.hasSuffix(".sqlite") else { return nil }
        return ["device", "collector"].first { name.hasSuffix("-\($0).sqlite") }
    }

    init(index: Int, party: String, folder: String, binary: URL, seed: UInt64) {
        self.index = index
        self.party = party
        self.binary = binary
        self.seed = seed
        database = folder + "/" + Self.databaseName(index: index, party: party)
        logs = folder + "/logs"
    }

    var isRunning: Bool { child?.isRunning ?? false }

    /// Starts a new process of this install.
    func start(endpoint: URL, writeKey: String, stopFile: String) throws {
        starts += 1
        let name = "install-\(String(format: "%02d", index))-\(String(format: "%03d", starts))"
        child = try FleetChild(
            binary,
            [
                database, endpoint.absoluteString, party, String(seed &* 1_000 &+ UInt64(starts)),
                stopFile,
            ],
            environment: ["PAYWALL_COLLECTOR_KEY": writeKey], logs: "\(logs)/\(name)")
    }

    /// Waits (at most `seconds`) until the current process printed `line`.
    func waitFor(_ line: String, seconds: Double) -> Bool {
        child?.waitForOutput(seconds: seconds) { $0.contains(line + "\n") } != nil
    }

    /// SIGKILLs the current process; returns its exit status (137 unless it had exited already).
    func kill() -> Int32 { child?.stop(SIGKILL) ?? 0 }
}
