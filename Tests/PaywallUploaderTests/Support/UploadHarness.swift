import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport

/// A device store, a central store with a write key, the built collector serving the central store,
/// and the built CLI: everything on 127.0.0.1, every byte written inside one temporary folder.
final class UploadHarness: @unchecked Sendable {
    let folder = TemporaryDirectory(prefix: "upload-tests")
    let central: String
    let device: String
    let key: String
    let cli: CommandRunner
    private(set) var collector: CollectorProcess?
    /// Every stdout and stderr the tests' CLI runs produced (searched for the key).
    private let outputs = OutputLog()

    init(startCollector: Bool = true, collectorArguments: [String] = []) throws {
        central = folder.path("central.sqlite")
        device = folder.path("device.sqlite")
        cli = try CommandRunner(product: "paywall-analytics")
        let made = try cli.runBlocking(["keys", "add", "ios-app", "--db", central])
        guard made.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: made.stderr])
        }
        key = made.stdout.trimmingCharacters(in: .newlines)
        if startCollector { try startCollectorProcess(arguments: collectorArguments) }
    }

    /// Starts (or restarts) the collector on the central store.
    func startCollectorProcess(arguments: [String] = []) throws {
        collector = try CollectorProcess(db: central, folder: folder, arguments: arguments)
    }

    /// Stops the collector with `signal`.
    func stopCollector(_ signal: Int32 = SIGTERM) {
        collector?.stop(signal)
        collector = nil
    }

    var endpoint: String { "http://127.0.0.1:\(collector?.port ?? 1)" }

    /// Records `events` into the device store, as the app's recorder does (impressions enter the outbox).
    @discardableResult
    func record(_ events: [EventRecord], recordedAt: Int64? = nil) throws -> [EventRecord] {
        let store = try EventStore(path: device, now: recordedAt.map(Now.constant) ?? .system)
        try store.insert(events)
        return events
    }

    /// Runs `paywall-analytics upload` on the device store with the key in the environment.
    func upload(
        _ arguments: [String] = [], forwarding: String = "device", key: String? = nil,
        endpoint: String? = nil
    ) async throws -> CommandRunner.Output {
        let output = try await cli.run(
            [
                "upload", "--db", device, "--endpoint", endpoint ?? self.endpoint,
                "--forwarding", forwarding,
            ] + arguments,
            environment: ["PAYWALL_COLLECTOR_KEY": key ?? self.key])
        outputs.append(output.stdout + output.stderr)
        return output
    }

    /// Runs the CLI with `arguments`, keeping its outputs for the key search.
    func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> CommandRunner.Output {
        let output = try await cli.run(arguments, environment: environment)
        outputs.append(output.stdout + output.stderr)
        return output
    }

    /// A value of `sql` on the store at `path`, read on a connection of the test's own.
    func int(_ path: String, _ sql: String) throws -> Int {
        let connection = try Connection(path: path, options: OpenOptions(readOnly: true, create: false))
        return Int(try connection.scalar(sql)?.int64 ?? -1)
    }

    /// The event ids stored at `path`.
    func ids(_ path: String) throws -> [String] {
        let connection = try Connection(path: path, options: OpenOptions(readOnly: true, create: false))
        return try connection.all("SELECT id FROM events ORDER BY seq") { $0.string(at: 0) ?? "" }
    }

    /// The upload cursor of the device store.
    var cursor: Int { (try? int(device, "SELECT coalesce(max(acknowledged_seq), 0) FROM upload_cursor")) ?? -1 }

    /// The places where `needle` was written: any file in the folder (stores, their -wal and -shm,
    /// the collector's stdout and stderr) and any CLI output of this harness.
    func placesHolding(_ needle: String) -> [String] {
        let bytes = Data(needle.utf8)
        var found: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? []
        for name in names {
            if let data = FileManager.default.contents(atPath: folder.path(name)), data.range(of: bytes) != nil {
                found.append(name)
            }
        }
        for (index, text) in outputs.all.enumerated() where text.contains(needle) {
            found.append("CLI output \(index)")
        }
        return found
    }
}

/// CLI outputs collected from several tasks.
final class OutputLog: @unchecked Sendable {
    // @unchecked Sendable: `texts` is only read and written under `lock`.
    private let lock = NSLock()
    private var texts: [String] = []

    func append(_ text: String) { lock.withLock { texts.append(text) } }
    var all: [String] { lock.withLock { texts } }
}
