import Foundation
import PaywallDelivery
import Testing

struct RetryPolicyTests {
    /// base 1 s, cap 60 s, jitter fraction fixed at 0.5, Retry-After cap 1 h.
    let policy = RetryPolicy(base: .seconds(1), cap: .seconds(60), random: { 0.5 })

    @Test(
        arguments: [
            // status, Retry-After, attempt, expected
            (200, nil, 1, RetryDecision.delivered),
            (201, nil, 3, .delivered),
            (204, .seconds(30), 1, .delivered),
            (500, nil, 1, .retry(after: .milliseconds(500))),
            (502, nil, 2, .retry(after: .milliseconds(1000))),
            (503, nil, 3, .retry(after: .milliseconds(2000))),
            (503, .seconds(30), 3, .retry(after: .seconds(30))),
            (404, nil, 4, .retry(after: .milliseconds(4000))),
            (429, nil, 1, .retry(after: .milliseconds(500))),
            (429, .seconds(120), 1, .retry(after: .seconds(120))),
            (429, .seconds(7200), 1, .retry(after: .seconds(3600))),
            (429, .zero, 5, .retry(after: .zero)),
            (500, nil, 10, .retry(after: .seconds(30))),  // 2^9 s capped at 60 s, half of it
            (500, nil, 100, .retry(after: .seconds(30))),  // huge attempt numbers stay capped
            (400, nil, 1, .deadLetter(reason: "{\"code\":7225}")),
            (401, nil, 1, .deadLetter(reason: "{\"code\":7225}")),
            (403, .seconds(5), 2, .deadLetter(reason: "{\"code\":7225}")),
            (413, nil, 1, .deadLetter(reason: "{\"code\":7225}")),
            (422, nil, 1, .deadLetter(reason: "{\"code\":7225}")),
            (302, nil, 1, .retry(after: .milliseconds(500))),
        ] as [(Int, Duration?, Int, RetryDecision)])
    func decidesPerRevenueCatRules(status: Int, retryAfter: Duration?, attempt: Int, expected: RetryDecision) {
        // Given a response / When the policy decides / Then it follows the retry table of RetryPolicy
        let decision = policy.decide(
            status: status, retryAfter: retryAfter, attempt: attempt, body: Data("{\"code\":7225}".utf8))
        #expect(decision == expected)
    }

    @Test(arguments: [
        TransportError.timedOut, .cannotConnect(detail: "refused"), .connectionLost,
        .unreadableResponse(detail: "garbage"), .other(detail: "x"),
    ])
    func transportErrorsAreRetriedWithBackoff(error: TransportError) {
        #expect(policy.decide(transportError: error, attempt: 2) == .retry(after: .seconds(1)))
    }

    @Test func fullJitterSpansZeroToTheCeiling() {
        // Given jitter sources at the extremes
        let low = RetryPolicy(base: .seconds(1), cap: .seconds(60), random: { 0 })
        let high = RetryPolicy(base: .seconds(1), cap: .seconds(60), random: { 0.999_999 })
        // Then the delay is drawn from 0 up to min(cap, base·2^(n-1))
        #expect(low.backoff(attempt: 4) == .zero)
        #expect(high.backoff(attempt: 4) == .milliseconds(7999))
        #expect(high.backoff(attempt: 30) == .milliseconds(59_999))
    }

    @Test func deadLetterExcerptIsAtMostOneKilobyteOnACharacterBoundary() throws {
        // Given a 5 KB body of two-byte characters
        let body = Data(String(repeating: "é", count: 2500).utf8)
        // When refused
        guard case .deadLetter(let reason) = policy.decide(status: 400, retryAfter: nil, attempt: 1, body: body) else {
            Issue.record("expected a dead letter")
            return
        }
        // Then the excerpt is ≤ 1024 bytes and valid UTF-8
        #expect(reason.utf8.count == 1024)
        #expect(reason == String(repeating: "é", count: 512))
    }

    @Test func emptyRefusalBodyStillGivesAReason() {
        #expect(
            policy.decide(status: 401, retryAfter: nil, attempt: 1)
                == .deadLetter(reason: "HTTP 401 with an empty body"))
    }

    @Test(
        arguments: [
            ("120", Duration.seconds(120)),
            (" 7 ", .seconds(7)),
            ("0", .zero),
            ("Sun, 30 Nov 2025 07:06:50 GMT", .seconds(10)),  // now is 07:06:40
            ("Sunday, 30-Nov-25 07:07:40 GMT", .seconds(60)),
            ("Sun Nov 30 07:06:41 2025", .seconds(1)),
            ("Sun, 30 Nov 2025 07:00:00 GMT", .zero),  // in the past
        ] as [(String, Duration)])
    func parsesRetryAfterSecondsAndHTTPDates(header: String, expected: Duration) {
        let now: Int64 = 1_764_486_400_000  // 2025-11-30T07:06:40Z
        #expect(RetryPolicy.retryAfter(header: header, now: now) == expected)
    }

    @Test(arguments: [nil, "", "soon", "-5", "1.5", "Sun, 99 Foo 2025"] as [String?])
    func ignoresUnusableRetryAfter(header: String?) {
        #expect(RetryPolicy.retryAfter(header: header, now: 0) == nil)
    }

    @Test func unparseablyLargeRetryAfterIsCappedAtOneHour() {
        let after = RetryPolicy.retryAfter(header: "99999999999999999999999", now: 0)
        #expect(policy.decide(status: 429, retryAfter: after, attempt: 1) == .retry(after: .seconds(3600)))
    }
}
