import PaywallCore
import Testing

/// ``NearestNames``: the edit distance and the "did you mean" lists built on it.
struct NearestNamesTests {
    @Test func distanceCountsEditsAndSwapsOfNeighbours() {
        #expect(NearestNames.distance("onboarding", "onboarding") == 0)
        #expect(NearestNames.distance("onbaording", "onboarding") == 1)  // a swap
        #expect(NearestNames.distance("--plcement", "--placement") == 1)  // a deletion
        #expect(NearestNames.distance("settngs", "settings") == 1)
        #expect(NearestNames.distance("kitten", "sitting") == 3)
        #expect(NearestNames.distance("", "abc") == 3 && NearestNames.distance("abc", "") == 3)
        #expect(NearestNames.distance("Onboarding", "onboarding") == 0)  // ASCII case is ignored
        #expect(NearestNames.distance("café", "cafe") == 1)  // scalars, not bytes
        // Symmetric
        for (a, b) in [("promo_banner", "promo_baner"), ("winback", "feature_gate"), ("ab", "ba")] {
            #expect(NearestNames.distance(a, b) == NearestNames.distance(b, a))
        }
    }

    @Test func closestListsTheNearestFirstWithinTheLimit() {
        let known = ["onboarding", "settings", "winback", "feature_gate", "limit_reached", "promo_banner"]
        #expect(NearestNames.closest(to: "onbaording", among: known, limit: 3, within: 2) == ["onboarding"])
        #expect(NearestNames.closest(to: "zzzz", among: known, limit: 2, within: 2).isEmpty)
        // Without a bound the list is never empty while something is known
        #expect(NearestNames.closest(to: "zzzz", among: known, limit: 2).count == 2)
        #expect(NearestNames.closest(to: "x", among: [String](), limit: 3).isEmpty)
        // Ties are ordered by name, duplicates count once
        #expect(NearestNames.closest(to: "ab", among: ["ac", "aa", "ac"], limit: 5) == ["aa", "ac"])
        #expect(NearestNames.typoDistance(for: "--db") == 2 && NearestNames.typoDistance(for: "onbaording_trial") == 5)
    }
}
