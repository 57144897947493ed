import Foundation
import PaywallCore
import PaywallStore
import PaywallTestSupport
import RevenueCatForwarder

/// Drains pending impressions to the loopback RevenueCat stand-in (which parses and checks
/// every body) through the real `URLSessionTransport`, and reports impressions/s and requests/s.
enum ForwarderBench {
    static func run(_ arguments: [String]) async {
        var count = 100_000
        var outboxes = ["memory", "sqlite"]
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--count" where index + 1 < arguments.count:
                count = Int(arguments[index + 1]) ?? count
                index += 1
            case "--outbox" where index + 1 < arguments.count:
                outboxes = arguments[index + 1] == "both" ? ["memory", "sqlite"] : [arguments[index + 1]]
                index += 1
            default:
                FileHandle.standardError.write(Data("Error: unknown option \(arguments[index])\n".utf8))
                exit(64)
            }
            index += 1
        }
        do {
            for kind in outboxes { try await drain(count: count, kind: kind) }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            exit(70)
        }
    }

    static func drain(count: Int, kind: String) async throws {
        let events = makeImpressions(count)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "paywall-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox: any EventOutbox
        switch kind {
        case "memory":
            let memory = InMemoryOutbox()
            memory.add(events)
            outbox = memory
        case "sqlite":
            let store = try EventStore(path: directory.appendingPathComponent("bench.sqlite").path, now: .system)
            for start in stride(from: 0, to: events.count, by: 10_000) {
                try store.insert(events[start..<min(start + 10_000, events.count)].map { $0 })
            }
            outbox = SQLiteOutbox(store: store)
        default:
            throw BenchError(message: "unknown outbox \(kind); use memory, sqlite or both")
        }
        let standIn = try RevenueCatStandIn(recordExchanges: false)
        defer { standIn.stop() }
        let configuration = ForwarderConfiguration(
            apiKey: try APIKey("test_benchmarkKey0000"),
            endpoint: standIn.baseURL,
            maxBatches: 1_000_000,
            leaseOwner: "paywall-bench"
        )
        let forwarder = Forwarder(
            outbox: outbox, transport: URLSessionTransport(timeout: .seconds(10)),
            configuration: configuration, now: .system)
        let clock = ContinuousClock()
        let start = clock.now
        guard case .completed(let summary) = try await forwarder.forwardOnce() else {
            throw BenchError(message: "the outbox lease was busy")
        }
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let accepted = standIn.acceptedEventIDs.count
        guard summary.delivered == count, accepted == count, standIn.violations.isEmpty else {
            throw BenchError(
                message: "incomplete drain: delivered \(summary.delivered), stand-in accepted \(accepted), "
                    + "violations \(standIn.violations.prefix(3))")
        }
        let line = String(
            format: "forwarder[%@]: %d impressions in %.2f s over %d requests: %.0f impressions/s, %.0f requests/s",
            kind, count, seconds, summary.requests, Double(count) / seconds, Double(summary.requests) / seconds)
        print(line)
        BenchTargets.measured("impressions/s (\(kind) outbox)", String(Double(count) / seconds))
    }

    static func makeImpressions(_ count: Int) -> [EventRecord] {
        var generator = SystemRandomNumberGenerator()
        let base: Int64 = 1_764_400_000_000
        return (0..<count).map { index in
            let time = base + Int64(index) * 37
            return EventRecord(
                id: UUIDv7.make(milliseconds: time, using: &generator),
                name: .paywallShown,
                occurredAt: time,
                userID: "user_\(index % 5_000)",
                sessionID: UUIDv7.make(milliseconds: time, using: &generator),
                properties: EventProperties(
                    pwID: UUIDv7.make(milliseconds: time, using: &generator),
                    source: ["onboarding", "settings", "paywall_gate"][index % 3],
                    offeringID: "default", placementID: index % 2 == 0 ? "home" : nil)
            )
        }
    }

    struct BenchError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
