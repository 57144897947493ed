import PaywallStore
import PaywallWire
import Testing

/// `CommitCounts`, deprecated since the store's counts and the delivery machinery's became one type
/// (`EventCounts`, in PaywallWire), still names that type, so code written against it compiles.
struct CommitCountsAliasTests {
    @available(*, deprecated, message: "uses the deprecated name CommitCounts on purpose")
    @Test func theOldNameOfTheStoresCountsStillNamesTheOneType() {
        let old: CommitCounts = CommitCounts(accepted: 1, duplicates: 2, quarantined: 3)
        #expect(old == EventCounts(accepted: 1, duplicates: 2, quarantined: 3, suppressed: 0))
        #expect(old.suppressed == 0 && old.total == 6)
    }
}
