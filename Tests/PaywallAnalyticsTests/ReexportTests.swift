import Foundation
import PaywallAnalytics
import RevenueCatForwarder
import Testing

/// The names that moved from RevenueCatForwarder into PaywallDelivery and PaywallWire are still
/// reached through `import RevenueCatForwarder` (it re-exports both), and the facade still exposes
/// its loops and policies with them. This file imports no other module of the package on purpose: a
/// name that stopped being re-exported fails to compile here.
struct ReexportTests {
    /// An app's own transport, as one written against RevenueCatForwarder before the move.
    struct CannedTransport: HTTPTransport {
        let response: HTTPResponse
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { response }
    }

    /// An app's own destination: every requirement's types come through the re-export.
    struct EchoDestination: DeliveryDestination {
        var pauseKey: String { "echo" }
        var displayName: String { "the echo" }
        func nextBatch(limit: Int, now: Int64) throws -> [Int]? { [1, 2, 3] }
        func count(of batch: [Int]) -> Int { batch.count }
        func attempt(of batch: [Int], failures: Int) -> Int { failures + 1 }
        func request(for batch: [Int], attempt: Int) throws -> HTTPRequest {
            HTTPRequest(
                method: "POST", url: URL(string: "http://127.0.0.1:1/echo")!,
                headers: [HTTPHeader("Authorization", "Bearer appl_Reexport0123456789")], body: Data("[1,2,3]".utf8))
        }
        func verdict(for response: HTTPResponse, of batch: [Int], attempt: Int, now: Int64) -> DeliveryVerdict {
            response.status == 200 ? .delivered(EventCounts(accepted: batch.count)) : .shrink(reason: "too large")
        }
        func verdict(for error: TransportError, of batch: [Int], attempt: Int) -> DeliveryVerdict {
            .retry(after: .seconds(1), reason: error.description)
        }
        func record(_ verdict: DeliveryVerdict, of batch: [Int], attempt: Int, at: Int64) throws {}
    }

    /// A pass runner for a ``DeliveryLoop``.
    struct FixedRunner: DeliveryPassRunning {
        let pass: DeliveryPass
        func runPass() async throws -> DeliveryPass { pass }
    }

    @Test func theMovedTransportAndDestinationNamesAreReachedThroughRevenueCatForwarder() async throws {
        // Given an app's transport and destination written with the moved names
        let destination = EchoDestination()
        let transport: any HTTPTransport = CannedTransport(
            response: HTTPResponse(status: 200, headers: ["Retry-After": "120"], body: Data("{}".utf8)))
        let request = try destination.request(for: [1, 2, 3], attempt: 1)
        // When the request is sent and its answer judged
        let response = try await transport.send(request)
        let verdict = destination.verdict(for: response, of: [1, 2, 3], attempt: 1, now: 0)
        // Then the types and their members behave as before the move
        #expect(verdict == .delivered(EventCounts(accepted: 3)))
        #expect(response.headers["retry-after"] == "120")
        #expect(request.header("authorization") == "Bearer appl_Reexport0123456789")
        #expect(!request.description.contains("appl_"))
        #expect(destination.maxInFlight == 1)  // the protocol extension's default, also re-exported
        #expect(try destination.nextBatch(after: [1], limit: 10, now: 0) == nil)
        #expect(EventCounts(accepted: 1, duplicates: 2, quarantined: 3, suppressed: 4).total == 10)
        let _: any HTTPTransport = URLSessionTransport(timeout: .seconds(1))
        let _: DeliveryEngine.Type = RevenueCatForwarder.DeliveryEngine.self  // qualified by the old module
        #expect(TransportError.redirected(status: 302).description.contains("never followed"))
    }

    /// `DeliveryCounts`, deprecated since it became one type with the store's counts, still names it.
    @available(*, deprecated, message: "uses the deprecated name DeliveryCounts on purpose")
    @Test func theOldNameOfTheCountsStillNamesTheOneType() {
        let old: DeliveryCounts = DeliveryCounts(accepted: 2, suppressed: 1)
        #expect(old == EventCounts(accepted: 2, duplicates: 0, quarantined: 0, suppressed: 1))
        #expect(DeliveryVerdict.delivered(old) == .delivered(EventCounts(accepted: 2, suppressed: 1)))
    }

    @Test func theRetryRulesAndTheRedactionAreReachedThroughRevenueCatForwarder() {
        let policy = RevenueCatForwarder.RetryPolicy(base: .seconds(1), cap: .seconds(60), random: { 0.5 })
        #expect(
            policy.decide(status: 503, retryAfter: nil, attempt: 1) == RetryDecision.retry(after: .milliseconds(500)))
        #expect(
            policy.decide(status: 400, retryAfter: nil, attempt: 1, body: Data("no".utf8)) == .deadLetter(reason: "no"))
        #expect(RetryPolicy.retryAfter(header: "120", now: 0) == .seconds(120))
        let redacted = KeyRedaction.redact(Data("bad key appl_Secret0123456789".utf8), key: "appl_Secret0123456789")
        #expect(String(decoding: redacted, as: UTF8.self) == "bad key (redacted)")
    }

    @Test func aDeliveryLoopRunsAPassAndTheReportReadsAsBefore() async throws {
        // Given a loop over a runner whose pass delivered 3 items
        var report = DeliveryReport()
        report.accepted = 3
        report.stop = .nothingDue
        let loop = DeliveryLoop(
            runner: FixedRunner(pass: .completed(report)), interval: .seconds(60), clock: ContinuousClock())
        // When one pass runs outside the schedule / Then the report comes back as it was made
        let pass = try await loop.runOnce()
        #expect(pass == .completed(report))
        #expect(!report.unavailable && report.stop.rawValue == "nothing due")
        #expect(loop.passesRun == 0, "a pass outside the schedule is not the loop's")
    }

    @Test func theFacadeExposesItsLoopsAndPolicyWithTheMovedTypes() {
        // The facade's public members keep their types (checked at compile time by the key paths)
        let uploading: KeyPath<PaywallAnalytics, DeliveryLoop?> = \.uploading
        let forwarding: KeyPath<PaywallAnalytics, ForwardingLoop?> = \.forwarding
        let retryPolicy: WritableKeyPath<PaywallAnalytics.Configuration, RetryPolicy> = \.retryPolicy
        let upload: WritableKeyPath<SuspendReport, DeliveryPass?> = \.upload
        #expect(uploading != forwarding as AnyKeyPath)
        #expect(retryPolicy != upload as AnyKeyPath)
    }
}
