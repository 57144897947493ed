import Foundation
import PaywallSQLite
import PaywallTestSupport

/// The checks after a fleet run, on the files alone (so `paywall-fleet check` can run them again):
/// every store keeps the ``StoreInvariants`` (integrity included); the central store holds exactly
/// the union of every install's events; every impression is in exactly one delivery state, the one
/// its install's forwarding says; the central `report --nightly`
/// equals a report over a store that imported every install's file; the write key is in no file.
struct FleetChecks {
    let folder: String
    let cli: URL
    /// The key to search for in every file (`nil`: not known, as in `paywall-fleet check`).
    let writeKey: String?
    /// Figures for the summary, filled by ``run()``.
    private(set) var figures: [(String, String)] = []

    init(folder: String, cli: URL, writeKey: String?) {
        self.folder = folder
        self.cli = cli
        self.writeKey = writeKey
    }

    var central: String { folder + "/central.sqlite" }
    var reference: String { folder + "/reference.sqlite" }

    /// The install stores of the folder, with who forwards their impressions, by name.
    func installs() throws -> [(path: String, party: String)] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted().compactMap { name in
            FleetMember.party(ofDatabase: name).map { (path: folder + "/" + name, party: $0) }
        }
    }

    /// Runs every check; returns the failures (empty: all passed).
    mutating func run() -> [String] {
        var failures: [String] = []
        do {
            let installs = try installs()
            guard !installs.isEmpty else { return ["no install store (install-NN-<party>.sqlite) in \(folder)"] }
            failures += try importReference(installs)
            failures += try invariants([central, reference] + installs.map(\.path))
            failures += try sameEvents(installs)
            failures += try deliveryStates(installs)
            failures += try sameReports()
            failures += keyInNoFile()
        } catch {
            failures.append("a check could not run: \(error)")
        }
        return failures
    }

    /// The ``StoreInvariants`` of every store (each impression in exactly one delivery state, no stray
    /// row, the buckets equal to direct counts, integrity), each violation prefixed with its store.
    func invariants(_ paths: [String]) throws -> [String] {
        try paths.flatMap { path in try StoreInvariants.violations(path).map { "\(path): \($0)" } }
    }

    /// `paywall-analytics import` of every install's file into a fresh reference store.
    mutating func importReference(_ installs: [(path: String, party: String)]) throws -> [String] {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: reference + suffix) }
        let output = try CommandRunner(executable: cli).runBlocking(
            ["import"] + installs.map(\.path) + ["--db", reference])
        figures.append(("reference import", output.stdout.trimmingCharacters(in: .newlines)))
        guard output.status == 0, output.stdout.contains("duplicates 0, conflicts 0, quarantined 0") else {
            return [
                "importing the install files into \(reference) exited \(output.status): \(output.stdout) \(output.stderr)"
            ]
        }
        return []
    }

    /// Central = the union of the installs (every column but `recorded_at`), no event lost or extra.
    mutating func sameEvents(_ installs: [(path: String, party: String)]) throws -> [String] {
        let connection = try Connection(path: central, options: .readOnly)
        _ = try connection.run("ATTACH DATABASE ?1 AS reference", [.text(reference)])
        let columns =
            "id, name, occurred_at, user_id, session_id, catalog_version, pw_id, source, offering_id, "
            + "placement_id, product, result, via, open_s"
        let count = { (sql: String) in Int(try connection.scalar(sql)?.int64 ?? -1) }
        let lost = try count(
            "SELECT count(*) FROM (SELECT \(columns) FROM reference.events EXCEPT SELECT \(columns) FROM main.events)")
        let extra = try count(
            "SELECT count(*) FROM (SELECT \(columns) FROM main.events EXCEPT SELECT \(columns) FROM reference.events)")
        let centralCount = try count("SELECT count(*) FROM main.events")
        let quarantined = try count("SELECT count(*) FROM main.quarantine")
        var installTotal = 0
        for install in installs {
            installTotal += Int(
                try Connection(path: install.path, options: .readOnly).scalar("SELECT count(*) FROM events")?.int64 ?? 0
            )
        }
        figures.append(
            ("events", "\(centralCount) in the central store, \(installTotal) in the \(installs.count) installs"))
        var failures: [String] = []
        if lost > 0 { failures.append("\(lost) events of the installs are missing from the central store (lost)") }
        if extra > 0 { failures.append("\(extra) events of the central store are in no install's store, or differ") }
        if centralCount != installTotal {
            failures.append(
                "the central store holds \(centralCount) events, the installs \(installTotal) (a duplicate or a loss)")
        }
        if quarantined != 0 {
            failures.append("the central store quarantined \(quarantined) lines (the installs record valid events)")
        }
        if installTotal == 0 { failures.append("the installs recorded no event at all") }
        return failures
    }

    /// In the central store, a device install's impressions are forwarded by the device and a
    /// collector install's are pending (no RevenueCat key here), and the same in the reference store
    /// (an install's own deliveries import as forwarded by the device). (That each is in exactly one
    /// state, in every store, is one of the ``invariants(_:)``.)
    mutating func deliveryStates(_ installs: [(path: String, party: String)]) throws -> [String] {
        var failures: [String] = []
        var tallies: [String: Int] = [:]
        for install in installs {
            let wanted =
                install.party == "device"
                ? (central: FleetDeliveryStates.forwardedByDevice, reference: FleetDeliveryStates.forwardedByDevice)
                : (central: FleetDeliveryStates.pending, reference: FleetDeliveryStates.pending)
            for (store, state) in [(central, wanted.central), (reference, wanted.reference)] {
                let other = try FleetDeliveryStates.impressions(of: install.path, in: store, notIn: state)
                if other > 0 {
                    failures.append("\(other) impressions of \(install.path) are not \(state.name) in \(store)")
                }
            }
            tallies[install.party, default: 0] += try FleetDeliveryStates.impressionCount(install.path)
        }
        figures.append(
            (
                "impressions",
                tallies.sorted { $0.key < $1.key }.map { "\($0.value) of \($0.key) installs" }
                    .joined(separator: ", ")
            ))
        return failures
    }

    /// `report --nightly` over the central and the reference store with the same `--now`: every file
    /// equal byte for byte, `run.json` equal but for its `duration_ms` (the run's wall time).
    mutating func sameReports() throws -> [String] {
        let now = String(Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000 * 86_400_000 + 86_400_000 + 7_200_000)
        var failures: [String] = []
        for (store, out) in [(central, "central-report"), (reference, "reference-report")] {
            try? FileManager.default.removeItem(atPath: folder + "/" + out)
            let output = try CommandRunner(executable: cli).runBlocking([
                "report", "--nightly", "--out", folder + "/" + out,
                "--db", store, "--now", now,
            ])
            if output.status != 0 {
                failures.append("report --nightly over \(store) exited \(output.status): \(output.stderr)")
            }
        }
        guard failures.isEmpty else { return failures }
        let compared = try FleetReportComparison(folder + "/central-report", folder + "/reference-report")
        figures.append(("nightly report", "\(compared.files) files compared (--now \(now))"))
        return compared.differences
    }

    /// The write key in no byte of any file under the folder (stores, WAL, logs, reports).
    mutating func keyInNoFile() -> [String] {
        guard let writeKey, !writeKey.isEmpty else { return [] }
        var searched = 0
        var failures: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            let path = folder + "/" + name
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &directory), !directory.boolValue,
                let bytes = FileManager.default.contents(atPath: path)
            else { continue }
            searched += 1
            if bytes.range(of: Data(writeKey.utf8)) != nil { failures.append("the write key is in \(path)") }
        }
        figures.append(("write key", "in none of \(searched) files searched"))
        return failures
    }
}
