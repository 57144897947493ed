import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore

let secret = "appl_STOREsecretKEY9876543210zz"

/// A mutable "now".
final class TestTime: Sendable {
    private let value: Lock<Int64>
    init(_ start: Int64 = 1_764_500_000_000) { value = Lock(start) }
    var now: Now { Now { [self] in value.withLock { $0 } } }
    var current: Int64 { value.withLock { $0 } }
    func advance(ms: Int64) { value.withLock { $0 += ms } }
}

/// Deterministic impressions with time-ordered ids.
func impressions(_ count: Int, base: Int64 = 1_764_400_000_000) -> [EventRecord] {
    (0..<count).map { impression($0, base: base) }
}

func impression(_ index: Int, base: Int64) -> EventRecord {
    let id = UUID(uuidString: String(format: "01990000-0000-7000-8000-%012X", index))!
    let session: UUID? =
        index % 3 == 0 ? nil : UUID(uuidString: String(format: "5E55100E-0000-4000-8000-%012X", index % 7))
    let pwID = UUID(uuidString: String(format: "0E0E0E0E-0000-4000-8000-%012X", index))!
    let offering: String? = index % 2 == 0 ? "default" : nil
    let placement: String? = index % 4 == 0 ? "home" : nil
    let properties = EventProperties(pwID: pwID, source: "onboarding", offeringID: offering, placementID: placement)
    return EventRecord(
        id: id, name: .paywallShown, occurredAt: base + Int64(index), userID: "user_\(index % 31)",
        sessionID: session, properties: properties)
}

/// The `forwarder-crash-helper` executable built next to the test bundle.
enum Helper {
    static func url() throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            executable.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent("forwarder-crash-helper") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(searched: candidates.map(\.path))
        }
        return found
    }

    struct Missing: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "forwarder-crash-helper not found in \(searched); run `swift build` before the tests"
        }
    }

    /// Starts `forwarder-crash-helper forward DB PORT [NOW] [LEASE]` with the test key.
    static func start(db: String, port: UInt16, now: Int64? = nil, leaseMs: Int64? = nil, stdout: Pipe, stderr: Pipe)
        throws -> Process
    {
        let process = Process()
        process.executableURL = try url()
        process.arguments =
            ["forward", db, String(port)] + [now.map(String.init), leaseMs.map(String.init)].compactMap { $0 }
        // Only the key, plus any sanitizer options of the run (scripts/ci-hardening sets ASAN_OPTIONS/TSAN_OPTIONS).
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }
            .merging(["REVENUECAT_API_KEY": secret]) { _, key in key }
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return process
    }

    /// Runs the helper to completion; returns its stdout, stderr and exit status.
    static func run(db: String, port: UInt16, now: Int64? = nil, leaseMs: Int64? = nil) async throws -> (
        out: String, err: String, status: Int32
    ) {
        let stdout = Pipe()
        let stderr = Pipe()
        let process = try start(db: db, port: port, now: now, leaseMs: leaseMs, stdout: stdout, stderr: stderr)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let out = stdout.fileHandleForReading.readDataToEndOfFile()
                let err = stderr.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: (
                        String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self),
                        process.terminationStatus
                    ))
            }
        }
    }
}

/// Impressions per delivery state as the tables hold them: `pending` (rows of `outbox`),
/// `delivered` (rows of `deliveries`), `dead` (impressions with an open dead letter); zeros omitted.
func deliveryStates(_ connection: Connection) throws -> [String: Int64] {
    let counts = try connection.all(
        """
        SELECT (SELECT count(*) FROM outbox), (SELECT count(*) FROM deliveries),
               (SELECT count(DISTINCT event_id) FROM dead_letters WHERE requeued_at IS NULL)
        """
    ) { [$0.int64(at: 0), $0.int64(at: 1), $0.int64(at: 2)] }[0]
    return ["pending": counts[0], "delivered": counts[1], "dead": counts[2]].filter { $0.value > 0 }
}
