import Foundation
import PaywallDelivery
import PaywallLock
import PaywallTestSupport
import Testing

/// ``DeliveryLoop``'s count of its passes, which an app or a test waits on instead of a time.
struct DeliveryLoopTests {
    struct FixedRunner: DeliveryPassRunning {
        let pass: DeliveryPass
        func runPass() async throws -> DeliveryPass { pass }
    }

    @Test func aLoopCountsEachPassBeforeItReportsItAndNotThePassesRunOutsideIt() async throws {
        // Given a loop whose reports read the loop's count
        let seen = Lock<[Int]>([])
        let box = Lock<DeliveryLoop?>(nil)
        let loop = DeliveryLoop(
            runner: FixedRunner(pass: .busy), interval: .seconds(3_600), clock: ContinuousClock()
        ) { _ in
            let count = box.withLock { $0?.passesRun ?? -1 }
            seen.withLock { $0.append(count) }
        }
        box.withLock { $0 = loop }
        // When a pass runs outside the schedule / Then it is not the loop's
        _ = try await loop.runOnce()
        #expect(loop.passesRun == 0)
        // When the loop starts, then is triggered once
        let task = Task { await loop.run() }
        defer { task.cancel() }
        #expect(await Eventually.holds { seen.withLock { $0.count } == 1 })
        loop.trigger()
        #expect(await Eventually.holds { seen.withLock { $0.count } == 2 })
        // Then each report saw its own pass counted already, and no other pass ran
        #expect(seen.withLock { $0 } == [1, 2])
        #expect(loop.passesRun == 2)
    }
}
