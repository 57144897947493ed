import Foundation
import PaywallCollector
import Testing

/// `HTTPResponse` and `HTTPHeader`, public in PaywallCollector before the package had one of each,
/// are still reached through `import PaywallCollector` alone (it re-exports PaywallWire).
struct CollectorReexportTests {
    @Test func theCollectorsHTTPNamesAreStillReachedThroughIt() {
        let response = PaywallCollector.HTTPResponse(
            status: 405, headers: [PaywallCollector.HTTPHeader("Allow", "POST")], body: Data("{}".utf8))
        #expect(response.headers == [HTTPHeader("Allow", "POST")] && response.status == 405)
        #expect(CollectorAnswer(counts: EventCounts(accepted: 1)).json.hasPrefix("{\"accepted\":1,"))
    }
}
