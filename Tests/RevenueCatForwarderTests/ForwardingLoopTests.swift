import Foundation
import PaywallCore
import PaywallLock
import PaywallSimulation
import PaywallTestSupport
import RevenueCatForwarder
import Testing

struct ForwardingLoopTests {
    final class PassLog: Sendable {
        let passes = Lock<[ForwardingPass]>([])
        var count: Int { passes.withLock { $0.count } }

        func waitFor(_ count: Int) async -> Bool {
            await Eventually.holds { self.count >= count }
        }
    }

    @Test func runsAtStartThenEveryIntervalAndWhenTriggered() async throws {
        // Given a loop on a manual clock with a 60 s interval
        let outbox = InMemoryOutbox()
        let transport = ScriptedTransport()
        let clock = ManualClock()
        let log = PassLog()
        let forwarder = Forwarder(
            outbox: outbox, transport: transport,
            configuration: Fixtures.configuration(endpoint: URL(string: "http://127.0.0.1:1")!),
            now: TestTime().now)
        let loop = ForwardingLoop(forwarder: forwarder, interval: .seconds(60), clock: clock) { result in
            if case .success(let pass) = result { log.passes.withLock { $0.append(pass) } }
        }
        let task = Task { await loop.run() }
        defer { task.cancel() }
        // When it starts / Then one pass runs at once, then it sleeps
        #expect(await log.waitFor(1))
        #expect(loop.passesRun == 1, "a pass is counted before it is reported")
        #expect(await clock.waitForSleepers(1))
        // When 59 s pass / Then no new pass
        clock.advance(by: .seconds(59))
        try await Task.sleep(for: .milliseconds(20))
        #expect(log.count == 1)
        #expect(loop.passesRun == 1)
        // When impressions are flushed and the loop is triggered / Then a pass runs without waiting and delivers them
        outbox.add(Fixtures.impressions(3))
        loop.trigger()
        #expect(await log.waitFor(2))
        #expect(outbox.ids(in: .delivered).count == 3)
        // When a full interval passes after that / Then the periodic pass runs
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(60))
        #expect(await log.waitFor(3))
        #expect(transport.requests.count == 1)
        // And the loop counts its three passes, not the one run outside it
        _ = try await loop.forwardOnce()
        #expect(loop.passesRun == 3)
    }

    @Test func cancellingTheTaskStopsTheLoop() async throws {
        let clock = ManualClock()
        let log = PassLog()
        let forwarder = Forwarder(
            outbox: InMemoryOutbox(), transport: ScriptedTransport(),
            configuration: Fixtures.configuration(endpoint: URL(string: "http://127.0.0.1:1")!),
            now: TestTime().now)
        let loop = ForwardingLoop(forwarder: forwarder, interval: .seconds(60), clock: clock) { _ in
            log.passes.withLock { $0.append(.busy) }
        }
        let task = Task { await loop.run() }
        #expect(await clock.waitForSleepers(1))
        task.cancel()
        await task.value
        // Then the sleeper was released and no further pass runs
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(600))
        #expect(log.count == 1)
    }
}

struct ManualClockTests {
    final class Woken: Sendable {
        let order = Lock<[Int]>([])
    }

    @Test func sleepersResumeInDeadlineOrderOnlyWhenTimePassesTheirDeadline() async throws {
        // Given three sleepers with different deadlines
        let clock = ManualClock()
        let woken = Woken()
        let tasks = [30, 10, 20].map { seconds in
            Task {
                try await clock.sleep(for: .seconds(seconds))
                woken.order.withLock { $0.append(seconds) }
            }
        }
        #expect(await clock.waitForSleepers(3))
        // When time advances to 15 s / Then only the 10 s sleeper wakes
        clock.advance(by: .seconds(15))
        try await tasks[1].value
        #expect(woken.order.withLock { $0 } == [10])
        #expect(clock.sleeperCount == 2)
        // When time advances past the rest / Then they wake too
        clock.advance(by: .seconds(15))
        for task in tasks { try await task.value }
        #expect(Set(woken.order.withLock { $0 }) == [10, 20, 30])
        #expect(clock.now == ManualClock.Instant(offset: .seconds(30)))
    }

    @Test func sleepingUntilThePastReturnsAtOnceAndCancellationThrows() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)))
        let task = Task { try await clock.sleep(for: .seconds(100)) }
        #expect(await clock.waitForSleepers(1))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
