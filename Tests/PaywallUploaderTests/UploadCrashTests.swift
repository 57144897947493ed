import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The upload cursor under real SIGKILLs of `paywall-analytics upload`.
@Suite(.serialized)
struct UploadCrashTests {
    /// ``killedRun(_:after:)`` on a thread of its own: its waiting never holds the concurrency pool
    /// (two threads on this machine), which other tests of the parallel suite need.
    static func killedRunOffThePool(_ harness: UploadHarness, after delay: Duration) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try killedRun(harness, after: delay) })
            }
        }
    }

    /// Starts `upload` and SIGKILLs it after `delay`; returns whether the kill landed before it exited.
    static func killedRun(_ harness: UploadHarness, after delay: Duration) throws -> Bool {
        let process = Process()
        process.executableURL = harness.cli.executable
        process.arguments = [
            "upload", "--db", harness.device, "--endpoint", harness.endpoint, "--forwarding", "collector",
            "--quiet",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PAYWALL_COLLECTOR_KEY"] = harness.key
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now.advanced(by: delay)
        while ContinuousClock.now < deadline, process.isRunning { usleep(2_000) }
        let landed = process.isRunning
        if landed { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return landed
    }

    @Test func aKilledUploadNeverAdvancesTheCursorPastWhatTheCollectorHolds() async throws {
        // Given 20,000 presentations (40,000 events) on a device
        let harness = try UploadHarness()
        let events = try harness.record(DeviceEvents.presentations(20_000))
        var generator = SystemRandomNumberGenerator()
        var landed = 0
        // When uploads are killed at random moments, again and again
        for _ in 0..<40 where harness.cursor < 40_000 {
            let delay = Duration.milliseconds(Int.random(in: 30...400, using: &generator))
            if try await Self.killedRunOffThePool(harness, after: delay) { landed += 1 }
            // A killed run's lease (120 s) is not expired here: the next run takes it over at once,
            // since its holder's process is gone (`anotherRunHoldingTheLeaseMakesItBusy` shows a
            // lease of a run not known to be gone refusing a run).
            // Then every event up to the cursor is in the central store: the cursor moved only after a 2xx
            let cursor = harness.cursor
            let acknowledged = Set(try harness.ids(harness.device).prefix(cursor))
            let central = Set(try harness.ids(harness.central))
            #expect(acknowledged.isSubset(of: central), "cursor \(cursor) is past what the collector holds")
        }
        #expect(landed >= 5, "only \(landed) kills landed mid-run")
        // And a last run completes the upload: every event exactly once, each impression handed over once
        let last = try await harness.upload(forwarding: "collector")
        #expect(last.status == 0, "\(last.stderr)")
        #expect(harness.cursor == 40_000)
        #expect(Set(try harness.ids(harness.central)) == Set(events.map(\.id.uuidString)))
        #expect(try harness.int(harness.central, "SELECT count(*) FROM events") == 40_000)
        #expect(try harness.int(harness.central, "SELECT count(*) FROM outbox") == 20_000)
        #expect(try harness.int(harness.device, "SELECT count(*) FROM outbox") == 0)
        #expect(try StoreInvariants.violations(harness.device) == [])
        #expect(try StoreInvariants.violations(harness.central) == [])
    }
}
