import Foundation
import PaywallCore
import PaywallTestSupport
import RevenueCatForwarder
import Testing

struct KeyNeverLeaksTests {
    @Test func aSessionFullOfFailuresProducesNothingContainingTheKey() async throws {
        // Given a stand-in that echoes the Authorization header in refusals and fails in every other way
        let standIn = try RevenueCatStandIn()
        defer { standIn.stop() }
        standIn.respondByDefault { index, request in
            let echo = "{\"message\":\"key \(request.header("Authorization") ?? "") refused\"}"
            switch index % 6 {
            case 0: return .status(401, body: echo)
            case 1: return .status(503, body: echo, headers: ["X-Echo": request.header("Authorization") ?? ""])
            case 2: return .closeMidResponse
            case 3: return .status(400, body: String(repeating: "x", count: 980) + echo)  // key straddles the 1 KB cut
            case 4: return .malformed
            default: return .accepted
            }
        }
        let outbox = InMemoryOutbox()
        outbox.add(Fixtures.impressions(500))
        let time = TestTime()
        let forwarder = Forwarder(
            outbox: outbox, transport: URLSessionTransport(timeout: Eventually.patience),  // no answer here is late
            configuration: Fixtures.configuration(endpoint: standIn.baseURL), now: time.now)
        // When many passes run, capturing everything the forwarder produces
        var produced: [String] = []
        for _ in 0..<30 {
            let pass = try await forwarder.forwardOnce()
            var dumped = ""
            dump(pass, to: &dumped)
            produced += ["\(pass)", String(reflecting: pass), dumped]
            if case .completed(let summary) = pass { produced += [summary.description, summary.lastFailure ?? ""] }
            time.advance(ms: 3_600_000)
        }
        produced += outbox.deadLetters.map(\.reason)
        produced += outbox.entries.values.map { String(reflecting: $0) }
        for error in [APIKeyError.missing(source: .environment, placeholder: true)] as [any Error] {
            produced.append("\(error)")
        }
        var configurationDump = ""
        dump(forwarder.configuration, to: &configurationDump)
        produced.append(configurationDump)
        // Then the stand-in did receive the key (so the check is meaningful) …
        #expect(standIn.exchanges.contains { $0.request.header("Authorization") == "Bearer \(Fixtures.secret)" })
        #expect(!outbox.deadLetters.isEmpty)
        // … and nothing the forwarder produced contains it or an 8-character piece of it
        let pieces = (0...(Fixtures.secret.count - 8)).map { Array(Fixtures.secret)[$0..<($0 + 8)] }.map { String($0) }
        for text in produced {
            #expect(!pieces.contains { text.contains($0) }, "leak in: \(text.prefix(200))")
        }
    }
}
