import Foundation
import PaywallCore
import PaywallLock
import PaywallSimulation
import PaywallTestSupport

/// One soak run: three loops (recording, forwarding, nightly report) until the time is up, then the
/// final drain and the checks of ``SoakChecks``.
final class Soak: Sendable {
    let minutes: Double
    let folder: URL
    let seed: UInt64
    let binaries: URL
    let key = "appl_SoakStandInKey_7Qw2Er9Ty"
    var db: String { folder.appendingPathComponent("events.sqlite").path }
    let tally = Lock(SoakTally())

    init(minutes: Double, folder: URL, seed: UInt64) throws {
        self.minutes = minutes
        self.folder = folder
        self.seed = seed
        binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func binary(_ name: String) -> URL { binaries.appendingPathComponent(name) }

    func run() async throws -> SoakReport {
        let started = Date()
        let deadline = started.addingTimeInterval(minutes * 60)
        let standIn = try RevenueCatStandIn(recordExchanges: false)
        defer { standIn.stop() }
        let faults = StandInFaults(seed: seed ^ 0xFA17)
        standIn.respondByDefault { _, _ in faults.next() }
        print("soak: \(minutes) min, seed \(seed), work folder \(folder.path), stand-in \(standIn.baseURL)")
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { self.recordLoop(until: deadline) }
        DispatchQueue.global().async(group: group) { self.forwardLoop(until: deadline, endpoint: standIn.baseURL) }
        DispatchQueue.global().async(group: group) { self.nightlyLoop(until: deadline) }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                group.wait()
                continuation.resume()
            }
        }
        let loopSeconds = Date().timeIntervalSince(started)
        if let sabotage = ProcessInfo.processInfo.environment["PAYWALL_SOAK_SABOTAGE"] {
            try Sabotage.apply(sabotage, db: db, acknowledged: tally.withLock { $0.acknowledged })
        }
        let checks = SoakChecks(soak: self, standIn: standIn)
        let failures = try checks.run()
        var report = SoakReport(
            tally: tally.withLock { $0 }, faults: faults.served, checks: checks.figures, failures: failures)
        report.loopSeconds = loopSeconds
        report.totalSeconds = Date().timeIntervalSince(started)
        return report
    }

    func note(_ failure: String) {
        FileHandle.standardError.write(Data("soak: FAILURE \(failure)\n".utf8))
        tally.withLock { $0.failures.append(failure) }
    }

    /// Recording children, each SIGKILLed after 0.3–3 s; the ids they printed are acknowledged.
    func recordLoop(until deadline: Date) {
        var random = SeededGenerator(seed: seed)
        var run: UInt64 = 0
        while Date() < deadline {
            run += 1
            do {
                let child = try SoakChild(binary("paywall-soak"), ["record", db, String(seed &+ run)])
                Thread.sleep(forTimeInterval: Double.random(in: 0.3...3.0, using: &random))
                child.kill()
                let result = child.wait()
                let ids = result.stdout.split(separator: "\n", omittingEmptySubsequences: true)
                    .filter { $0.utf8.count == 36 }.map(String.init)
                // the last line may be cut by the kill; a cut line is not acknowledged (it has no newline)
                let complete = result.stdout.hasSuffix("\n") ? ids : Array(ids.dropLast())
                tally.withLock {
                    $0.recorderKills += 1
                    $0.acknowledged.append(contentsOf: complete)
                }
                if result.status != 137 {
                    note("recorder exited \(result.status) before the kill: \(result.stderr.prefix(500))")
                }
            } catch { note("cannot start the recorder: \(error)") }
        }
    }

    /// Forwarding passes, alternating between `paywall-analytics forward` (the product; its 120 s
    /// lease means a SIGKILLed run blocks forwarding for 2 minutes, so it is killed at most once per 4
    /// minutes) and `forwarder-crash-helper` (the same Forwarder and outbox with a 3 s lease, killed
    /// in half of its runs); kills land 3–80 ms after the start (a pass takes tens of ms), mostly mid-request.
    func forwardLoop(until deadline: Date, endpoint: URL) {
        var random = SeededGenerator(seed: seed ^ 0xF0)
        var lastProductKill = Date.distantPast
        while Date() < deadline {
            // Until the first recorder has created the database there is nothing to forward
            // (`forward` on a missing database exits 66 by design).
            guard FileManager.default.fileExists(atPath: db) else {
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            let product = Bool.random(using: &random)
            let name = product ? "forward" : "helper"
            do {
                let child =
                    product
                    ? try SoakChild(
                        binary("paywall-analytics"),
                        ["forward", "--db", db, "--endpoint", endpoint.absoluteString, "--max-batches", "20"],
                        environment: ["REVENUECAT_API_KEY": key])
                    : try SoakChild(
                        binary("forwarder-crash-helper"),
                        ["forward", db, String(endpoint.port ?? 0), "system", "3000"],
                        environment: ["REVENUECAT_API_KEY": key])
                let killed =
                    product
                    ? Date().timeIntervalSince(lastProductKill) > 240 && Double.random(in: 0..<1, using: &random) < 0.3
                    : Bool.random(using: &random)
                if killed {
                    Thread.sleep(forTimeInterval: Double.random(in: 0.003...0.08, using: &random))
                    child.kill()
                }
                let result = child.wait()
                if product && result.status == 137 { lastProductKill = Date() }
                tally.withLock { $0.forwardExits["\(name) \(result.status)", default: 0] += 1 }
                if result.status == 137 { tally.withLock { $0.forwarderKills += 1 } }
                // The product's forward: 69 retry later, 75 another pass holds the lease, 65 the stand-in's
                // injected 400 refusals were dead-lettered (the exit a refusal gets).
                let expected: [Int32] = product ? [0, 65, 69, 75] : [0]
                if !(expected.contains(result.status) || (result.status == 137 && killed)) {
                    note("\(name) exited \(result.status): \(result.stderr.prefix(500))")
                }
            } catch { note("cannot start \(name): \(error)") }
            Thread.sleep(forTimeInterval: Double.random(in: 0.1...0.6, using: &random))
        }
    }

    /// `paywall-analytics report --nightly` every 4–10 s (not killed).
    func nightlyLoop(until deadline: Date) {
        var random = SeededGenerator(seed: seed ^ 0x41)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: Double.random(in: 4...10, using: &random))
            guard FileManager.default.fileExists(atPath: db) else { continue }
            do {
                let result = try SoakChild(
                    binary("paywall-analytics"),
                    ["report", "--nightly", "--out", folder.appendingPathComponent("nightly").path, "--db", db]
                ).wait()
                tally.withLock { $0.nightlyExits[result.status, default: 0] += 1 }
                if result.status != 0 { note("nightly report exited \(result.status): \(result.stderr.prefix(500))") }
            } catch { note("cannot start the nightly report: \(error)") }
        }
    }
}
