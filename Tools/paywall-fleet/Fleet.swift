import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallTestSupport

/// One fleet run: a collector and `installs` app installs on 127.0.0.1, SIGKILLed at random (the
/// collector about one kill in five) and restarted until `minutes` have passed and at least `kills`
/// kills landed; then the drain (no more recording; every install uploads what it holds) and the
/// checks of ``FleetChecks``.
final class Fleet: @unchecked Sendable {
    // @unchecked: every member is used from the driver's one thread.
    struct Settings {
        var minutes: Double
        var installs: Int
        var kills: Int
        var folder: String
        var seed: UInt64
    }

    let settings: Settings
    let binaries: URL
    var tally = FleetTally()
    /// The most time the kill loop may take past `minutes` to reach `kills`.
    static let killLoopGrace: TimeInterval = 600
    /// The most time between two increases of the central store's events while the collector runs.
    static let progressTimeout: TimeInterval = 180
    /// The most time the drain may take.
    static let drainTimeout: TimeInterval = 600

    init(settings: Settings) {
        self.settings = settings
        binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    func binary(_ name: String) -> URL { binaries.appendingPathComponent(name) }
    var central: String { settings.folder + "/central.sqlite" }
    var stopFile: String { settings.folder + "/stop" }

    /// Runs the fleet and the checks; returns the tally with every failure found.
    func run() throws -> FleetTally {
        let started = Date()
        let folder = settings.folder
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        let key = try makeWriteKey()
        let collector = FleetCollector(binary: binary("paywall-analytics"), database: central, logs: folder + "/logs")
        try collector.start()
        FleetTally.say(
            "fleet: \(settings.installs) installs, collector on \(collector.endpoint), seed \(settings.seed), work folder \(folder)"
        )
        let members = (0..<settings.installs).map { index in
            FleetMember(
                index: index, party: index % 2 == 0 ? "device" : "collector", folder: folder,
                binary: binary("paywall-fleet-install"), seed: settings.seed &+ UInt64(index))
        }
        for member in members { try member.start(endpoint: collector.endpoint, writeKey: key, stopFile: stopFile) }
        for member in members where !member.waitFor("started", seconds: 120) {
            tally.fail("install \(member.index) did not start within 120 s: \(member.child?.stderrTail() ?? "")")
        }
        try killLoop(collector: collector, members: members, key: key)
        tally.killLoopSeconds = Date().timeIntervalSince(started)
        try drain(collector: collector, members: members, key: key)
        for member in members { _ = member.kill() }
        let stopped = collector.terminate()
        if stopped != 0 {
            tally.fail(
                "the collector exited \(stopped) on SIGTERM instead of 0: \(collector.child?.stderrTail() ?? "")")
        }
        var checks = FleetChecks(folder: folder, cli: binary("paywall-analytics"), writeKey: key)
        tally.failures += checks.run()
        tally.figures = checks.figures
        tally.totalSeconds = Date().timeIntervalSince(started)
        return tally
    }

    /// `keys add fleet`: the key is read from its standard output (a pipe) and kept in memory only.
    func makeWriteKey() throws -> String {
        let output = try CommandRunner(executable: binary("paywall-analytics")).runBlocking([
            "keys", "add", "fleet", "--db", central,
        ])
        let key = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0, !key.isEmpty else {
            throw FleetError(
                "`paywall-analytics keys add fleet --db \(central)` exited \(output.status): \(output.stderr)")
        }
        return key
    }

    /// Kills at random until the time is up and enough kills landed. The collector is killed again
    /// only once the central store received events since its last kill (uploads went on between).
    func killLoop(collector: FleetCollector, members: [FleetMember], key: String) throws {
        var random = SeededGenerator(seed: settings.seed ^ 0xF1EE7)
        let end = Date().addingTimeInterval(settings.minutes * 60)
        let hardEnd = end.addingTimeInterval(Self.killLoopGrace)
        var centralAtCollectorKill = -1
        var lastProgress = (count: 0, at: Date())
        while Date() < end || tally.kills < settings.kills {
            guard Date() < hardEnd else {
                tally.fail(
                    "only \(tally.kills) of \(settings.kills) kills in \(Int(Self.killLoopGrace)) s past the time")
                return
            }
            usleep(UInt32.random(in: 50_000...400_000, using: &random))
            let count = FleetStoreReader.eventCount(central)
            if count > lastProgress.count { lastProgress = (count, Date()) }
            if Date().timeIntervalSince(lastProgress.at) > Self.progressTimeout {
                tally.fail(
                    "the central store received no event for \(Int(Self.progressTimeout)) s (it holds \(count)); "
                        + "see the install logs under \(settings.folder)/logs (is the uploader configured?)")
                return
            }
            try restartExited(members, endpoint: collector.endpoint, key: key)
            if !collector.isRunning {
                tally.fail(
                    "the collector exited \(collector.kill()) on its own: \(collector.child?.stderrTail() ?? "")")
                try collector.start()
            }
            if count > centralAtCollectorKill, Int.random(in: 0..<5, using: &random) == 0 {
                let status = collector.kill()
                if status != 137 {
                    tally.fail(
                        "the collector exited \(status) before its SIGKILL: \(collector.child?.stderrTail() ?? "")")
                }
                tally.collectorKills += 1
                centralAtCollectorKill = count
                try collector.start()
            } else {
                let member = members.randomElement(using: &random)!
                let status = member.kill()
                if status != 137 {
                    tally.fail(
                        "install \(member.index) exited \(status) before its SIGKILL: \(member.child?.stderrTail() ?? "")"
                    )
                }
                tally.installKills += 1
                try member.start(endpoint: collector.endpoint, writeKey: key, stopFile: stopFile)
            }
        }
    }

    /// An install that exited on its own is a failure; it is restarted so the fleet goes on.
    func restartExited(_ members: [FleetMember], endpoint: URL, key: String) throws {
        for member in members where !member.isRunning {
            let status = member.child?.wait() ?? -1
            tally.fail("install \(member.index) exited \(status) on its own: \(member.child?.stderrTail() ?? "")")
            try member.start(endpoint: endpoint, writeKey: key, stopFile: stopFile)
        }
    }

    /// Stops the recording (the stop file), waits until every install is quiet, then until the
    /// central store holds every event of every install and the device installs forwarded every
    /// impression; bounded by ``drainTimeout``.
    func drain(collector: FleetCollector, members: [FleetMember], key: String) throws {
        _ = FileManager.default.createFile(atPath: stopFile, contents: Data())
        let started = Date()
        let deadline = started.addingTimeInterval(Self.drainTimeout)
        if !collector.isRunning { try collector.start() }
        for member in members {
            if !member.isRunning { try member.start(endpoint: collector.endpoint, writeKey: key, stopFile: stopFile) }
            if !member.waitFor("quiet", seconds: max(1, deadline.timeIntervalSinceNow)) {
                tally.fail(
                    "install \(member.index) did not go quiet after the stop file: \(member.child?.stderrTail() ?? "")")
            }
        }
        var waiting = members
        while !waiting.isEmpty, Date() < deadline {
            waiting = waiting.filter { !FleetStoreReader.isDrained($0, into: central) }
            if !waiting.isEmpty { usleep(200_000) }
        }
        for member in waiting {
            tally.fail(
                "install \(member.index) still holds events the collector lacks (or impressions to forward) "
                    + "after \(Int(Self.drainTimeout)) s: \(member.child?.stderrTail() ?? "")")
        }
        tally.drainSeconds = Date().timeIntervalSince(started)
    }
}
