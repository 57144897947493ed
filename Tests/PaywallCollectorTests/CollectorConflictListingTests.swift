import Foundation
import PaywallTestSupport
import Testing

/// A conflict (an event whose id is stored with other content, found only at commit) is a refused
/// line like any other: the answer lists it in `rejected` with its line number and reason, in body
/// order among the lines refused before the commit, whether the stored version came earlier or in
/// the same request. The built `serve`.
@Suite(.serialized)
struct CollectorConflictListingTests {
    /// A presentation's impression with id `id`, for `user`.
    static func shown(id: String, user: String, placement: String = "home") -> String {
        "{\"id\":\"\(id)\",\"name\":\"paywall_shown\",\"occurred_at\":1764400000000,\"user_id\":\"\(user)\","
            + "\"catalog_version\":1,\"pw_id\":\"\(UUID().uuidString)\",\"source\":\"onboarding\","
            + "\"placement_id\":\"\(placement)\"}"
    }

    @Test func aConflictIsListedInRejectedWithItsLineAndReason() throws {
        let harness = try CollectorHarness()
        // Given an event stored under an id
        let id = UUID().uuidString
        #expect(try harness.post(EventLines.body([Self.shown(id: id.uppercased(), user: "u1")])).status == 200)
        // When a request sends a good event, a bad line, and the same id (other case) with other content
        let good = EventLines.batch(pairs: 1)
        let reply = try harness.post(
            EventLines.body(good.lines + ["not json", Self.shown(id: id.lowercased(), user: "someone-else")]))
        // Then both refused lines are listed, in body order, the conflict with its line and reason
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["accepted"] as? Int == 2 && reply.json["quarantined"] as? Int == 2, "\(reply.text)")
        let rejected = try #require(reply.json["rejected"] as? [[String: Any]])
        #expect(rejected.compactMap { $0["line"] as? Int } == [3, 4], "\(reply.text)")
        let reasons = (rejected.last?["reasons"] as? [String] ?? []).joined()
        #expect(reasons.contains("already stored with other content") && reasons.contains("user_id"), "\(reasons)")
    }

    @Test func aConflictWithinOneRequestIsListedToo() throws {
        let harness = try CollectorHarness()
        // When one request holds an id twice, the second time with another placement
        let id = UUID().uuidString
        let reply = try harness.post(
            EventLines.body([
                Self.shown(id: id.uppercased(), user: "u2"),
                Self.shown(id: id.lowercased(), user: "u2", placement: "x"),
            ]))
        // Then the first is stored and the second is listed with line 2
        #expect(reply.json["accepted"] as? Int == 1 && reply.json["quarantined"] as? Int == 1, "\(reply.text)")
        let rejected = try #require(reply.json["rejected"] as? [[String: Any]])
        #expect(rejected.count == 1 && rejected.first?["line"] as? Int == 2, "\(reply.text)")
        let reasons = (rejected.first?["reasons"] as? [String] ?? []).joined()
        #expect(reasons.contains("placement_id"), "\(reasons)")
    }
}
