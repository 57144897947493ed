import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

/// The app's own closure (RevenueCat's SDK in an app) as the delivery route, over a real
/// SQLite outbox: delivered when it returns, retried with the policy's backoff when it throws.
struct ClosureForwarderTests {
    let directory = TemporaryDirectory()

    struct SDKUnavailable: Error {}

    /// A stand-in for `Purchases.shared.trackCustomPaywallImpression`: records the calls and
    /// throws while `failing` is positive.
    final class FakeSDK: Sendable {
        private let state = Lock((calls: [CustomPaywallImpression](), failing: 0))
        init(failing: Int) { state.withLock { $0.failing = failing } }
        var calls: [CustomPaywallImpression] { state.withLock { $0.calls } }
        func track(_ impression: CustomPaywallImpression) throws {
            try state.withLock {
                (state: inout (calls: [CustomPaywallImpression], failing: Int)) throws(SDKUnavailable) in
                state.calls.append(impression)
                if state.failing > 0 {
                    state.failing -= 1
                    throw SDKUnavailable()
                }
            }
        }
    }

    func forwarder(_ store: EventStore, _ sdk: FakeSDK, time: TestTime) -> ClosureForwarder {
        // Jitter fixed at 1.0, so the backoff is exactly base·2^(attempt-1): 2 s, 4 s, 8 s…
        ClosureForwarder(outbox: SQLiteOutbox(store: store), retryPolicy: RetryPolicy(random: { 1 }), now: time.now) {
            try sdk.track($0)
        }
    }

    @Test func everyImpressionIsHandedOverOnceInOrderWithItsFields() async throws {
        // Given 120 stored impressions and a closure that always returns
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(120).shuffled())
        let sdk = FakeSDK(failing: 0)
        // When one pass runs
        let pass = try await forwarder(store, sdk, time: TestTime()).forwardOnce()
        // Then all 120 went out in occurred_at order, each marked delivered
        guard case .completed(let summary) = pass else {
            Issue.record("busy")
            return
        }
        #expect(summary.delivered == 120 && summary.requests == 120 && summary.stop == .nothingDue)
        #expect(sdk.calls.map(\.id).sorted() == impressions(120).map(\.id).sorted())
        let record = impressions(1)[0]
        let first = try #require(sdk.calls.first { $0.id == record.id })
        #expect(first.paywallID == "onboarding" && first.offeringID == "default" && first.placementID == "home")
        #expect(first.appUserID == record.userID && first.timestampMs == record.occurredAt)
        #expect(try deliveryStates(store.connection) == ["delivered": 120])
        // And a second pass hands nothing over again
        _ = try await forwarder(store, sdk, time: TestTime()).forwardOnce()
        #expect(sdk.calls.count == 120)
    }

    @Test func aThrowIsRetriedWithBackoffUntilTheClosureReturns() async throws {
        // Given one impression and a closure that throws three times
        let path = directory.path("events.sqlite")
        let store = try EventStore(path: path, now: .constant(1_764_500_000_000))
        try store.insert(impressions(1))
        let sdk = FakeSDK(failing: 3)
        let time = TestTime()
        let forwarder = forwarder(store, sdk, time: time)
        var backoffs: [Int64] = []
        for attempt in 1...3 {
            // When a pass runs and the closure throws
            guard case .completed(let summary) = try await forwarder.forwardOnce() else {
                Issue.record("busy")
                return
            }
            // Then the impression stays pending, with the attempt counted and the next one later
            #expect(summary.willRetry == 1 && summary.delivered == 0 && summary.revenueCatUnavailable)
            #expect(summary.lastFailure == "the impression closure threw SDKUnavailable")
            #expect(try store.connection.scalar("SELECT attempts FROM outbox")?.int64 == Int64(attempt))
            let next = try #require(summary.nextAttemptAt)
            backoffs.append(next - time.current)
            // And nothing is handed over before the backoff has passed
            time.advance(ms: next - time.current - 1)
            guard case .completed(let early) = try await forwarder.forwardOnce() else { return }
            #expect(early.requests == 0 && early.stop == .nothingDue)
            time.advance(ms: 1)
        }
        #expect(backoffs == [2_000, 4_000, 8_000], "exponential, from the shared RetryPolicy")
        // When the closure finally returns
        guard case .completed(let summary) = try await forwarder.forwardOnce() else { return }
        // Then the impression is delivered (four calls, the same id every time) and kept across a reopen
        #expect(summary.delivered == 1 && summary.nextAttemptAt == nil)
        #expect(sdk.calls.count == 4 && Set(sdk.calls.map(\.id)).count == 1)
        let reopened = try EventStore(path: path, now: .constant(1_764_500_000_000))
        #expect(try deliveryStates(reopened.connection) == ["delivered": 1])
        #expect(try reopened.stats().outboxPending == 0)
    }

    @Test func aThrowEndsThePassAndLeavesTheRestDueNeverDeadLettered() async throws {
        // Given 10 impressions and a closure that throws once, then returns
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(10))
        let sdk = FakeSDK(failing: 1)
        let time = TestTime()
        let forwarder = forwarder(store, sdk, time: time)
        // When a pass runs
        guard case .completed(let first) = try await forwarder.forwardOnce() else { return }
        // Then it stopped at the first throw: one scheduled for later, nine untouched and still due
        #expect(first.requests == 1 && first.willRetry == 1 && first.stop == .revenueCatUnavailable)
        #expect(try deliveryStates(store.connection) == ["pending": 10])
        // When the next pass runs at once, the nine go out; the first waits for its backoff
        guard case .completed(let second) = try await forwarder.forwardOnce() else { return }
        #expect(second.delivered == 9)
        time.advance(ms: 2_000)
        guard case .completed(let third) = try await forwarder.forwardOnce() else { return }
        #expect(third.delivered == 1)
        #expect(try deliveryStates(store.connection) == ["delivered": 10])
        #expect(try store.connection.scalar("SELECT count(*) FROM dead_letters")?.int64 == 0)
    }

    @Test func aCancelledPassCountsNoAttemptAndLeavesTheImpressionDue() async throws {
        // Given a closure that waits until its task is cancelled
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(1))
        let started = Lock(false)
        let time = TestTime()
        let forwarder = ClosureForwarder(outbox: SQLiteOutbox(store: store), now: time.now) { _ in
            started.withLock { $0 = true }
            try await Task.sleep(for: .seconds(3_600))
        }
        // When the pass is cancelled while the closure runs
        let pass = Task { try await forwarder.forwardOnce() }
        #expect(await Eventually.holds { started.withLock { $0 } })
        pass.cancel()
        guard case .completed(let summary) = try await pass.value else {
            Issue.record("busy")
            return
        }
        // Then the pass says so, no attempt is counted, and the impression is due at once
        #expect(summary.stop == .cancelled && summary.willRetry == 0 && summary.delivered == 0)
        #expect(try store.connection.scalar("SELECT attempts FROM outbox")?.int64 == 0)
        #expect(try SQLiteOutbox(store: store).due(now: time.current, limit: 10).count == 1)
    }

    @Test func aPassHoldsTheOutboxLeaseAgainstTheHTTPForwarder() async throws {
        // Given a lease held by another forwarder on the same database
        let store = try EventStore(path: directory.path("events.sqlite"), now: .constant(1_764_500_000_000))
        try store.insert(impressions(3))
        let time = TestTime()
        #expect(try SQLiteOutbox(store: store).acquireLease(owner: "http pass", now: time.current, durationMs: 60_000))
        let sdk = FakeSDK(failing: 0)
        // When the closure forwarder runs, it is busy and hands nothing over
        #expect(try await forwarder(store, sdk, time: time).forwardOnce() == .busy)
        #expect(sdk.calls.isEmpty)
    }
}
