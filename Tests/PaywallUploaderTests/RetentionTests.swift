import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import PaywallUploader
import RevenueCatForwarder
import Testing

/// Device retention on a real SQLite file: what may go, what never goes, and that the
/// other tables stay consistent (the soak's checks).
struct RetentionTests {
    let folder = TemporaryDirectory(prefix: "retention-tests")
    static let day: Int64 = 86_400_000
    static let recorded: Int64 = 1_764_400_000_000

    /// 400 presentations recorded at `recorded`: of the 400 impressions, the first 100 delivered, the
    /// next 100 dead-lettered, the next 100 handed to the collector, the last 100 pending in the outbox;
    /// the collector acknowledged the first 700 events (seq 1…700).
    func prepared() throws -> (store: EventStore, path: String, events: [EventRecord]) {
        let path = folder.path("device.sqlite")
        let store = try EventStore(path: path, now: .constant(Self.recorded))
        let events = DeviceEvents.presentations(400)
        try store.insert(events)
        let outbox = SQLiteOutbox(store: store)
        let impressions = events.filter { $0.name == .paywallShown }.map(\.id)
        try outbox.markDelivered(Array(impressions[0..<100]), at: Self.recorded)
        try outbox.deadLetter(Array(impressions[100..<200]), status: 400, reason: "refused", at: Self.recorded)
        let queue = SQLiteUploadQueue(store: store)
        try queue.acknowledge(through: 400, handOffImpressions: false, at: Self.recorded)
        try queue.acknowledge(through: 600, handOffImpressions: true, at: Self.recorded)
        try queue.acknowledge(through: 700, handOffImpressions: false, at: Self.recorded)
        return (store, path, events)
    }

    func seqs(_ path: String) throws -> [Int64] {
        try Connection(path: path, options: .readOnly).all("SELECT seq FROM events ORDER BY seq") { $0.int64(at: 0) }
    }

    @Test func nothingYoungerThanTheRetentionGoes() throws {
        let (store, path, _) = try prepared()
        let result = try store.prune(RetentionPolicy(), now: Self.recorded + 6 * Self.day)
        #expect(result.deleted == 0)
        #expect(try seqs(path).count == 800)
        #expect(try store.stats().deletedByRetention == 0)
    }

    @Test func oldUploadedDoneEventsGoAndNothingElse() throws {
        // Given the prepared store, 8 days later
        let (store, path, _) = try prepared()
        let result = try store.prune(RetentionPolicy(), now: Self.recorded + 8 * Self.day)
        // Then every event up to seq 700 goes except the impressions still in the outbox (there are none
        // up to 600; seq 601…700 holds 50 pending impressions); nothing after the cursor goes
        let kept = try seqs(path)
        let pendingUpTo700 = try store.connection.scalar("SELECT count(*) FROM outbox WHERE event_rowid <= 700")?.int64
        #expect(pendingUpTo700 == 50)
        #expect(result.deletedForAge == 650 && result.deletedForBudget == 0)
        #expect(kept.filter { $0 > 700 }.count == 100)
        #expect(kept.filter { $0 <= 700 }.count == 50)
        #expect(try store.connection.scalar("SELECT count(*) FROM outbox")?.int64 == 100)
        // And stats counts them, and the soak's invariants hold
        let stats = try store.stats()
        #expect(stats.deletedByRetention == 650)
        #expect(stats.outboxPending == 100 && stats.outboxDelivered == 0 && stats.outboxDead == 0)
        #expect(try StoreInvariants.violations(path) == [])
    }

    @Test func theHighestSeqStaysSoNoSeqIsReused() throws {
        let (store, path, events) = try prepared()
        try SQLiteOutbox(store: store).markDelivered(
            events.filter { $0.name == .paywallShown }.map(\.id), at: Self.recorded)
        let queue = SQLiteUploadQueue(store: store)
        try queue.acknowledge(through: 800, handOffImpressions: true, at: Self.recorded)
        try store.prune(RetentionPolicy(), now: Self.recorded + 8 * Self.day)
        #expect(try seqs(path) == [800])
        // A new event gets a seq past everything the collector acknowledged: it is uploaded next
        try store.insert(DeviceEvents.presentations(1))
        #expect(try seqs(path) == [800, 801, 802])
        #expect(try queue.events(after: queue.uploadCursor(), limit: 10).map(\.seq) == [801, 802])
        #expect(try StoreInvariants.violations(path) == [])
    }

    @Test func pastTheByteBudgetTheOldestUploadedEventsGoFirstWhateverTheirAge() throws {
        // Given 6,000 presentations, all uploaded and handed over but the last 1,000 events
        let path = folder.path("budget.sqlite")
        let store = try EventStore(path: path, now: .constant(Self.recorded))
        try store.insert(DeviceEvents.presentations(6_000, user: String(repeating: "u", count: 200)))
        try SQLiteUploadQueue(store: store).acknowledge(through: 11_000, handOffImpressions: true, at: Self.recorded)
        let before = try store.prune(RetentionPolicy(byteBudget: .max), now: Self.recorded)
        #expect(before.deleted == 0)
        // When the budget is half the pages in use, and nothing is old
        let budget = before.bytesBefore / 2
        let result = try store.prune(RetentionPolicy(byteBudget: budget), now: Self.recorded + 1)
        // Then the oldest go first until the store is under budget; none after the cursor
        let kept = try seqs(path)
        #expect(result.deletedForAge == 0 && result.deletedForBudget > 0)
        #expect(result.bytesAfter <= budget, "\(result)")
        #expect(kept.first == Int64(result.deletedForBudget) + 1)
        #expect(kept == Array((Int64(result.deletedForBudget) + 1)...12_000))
        #expect(try StoreInvariants.violations(path) == [])
    }

    @Test func withNothingUploadedNothingGoesEvenPastTheBudget() throws {
        let path = folder.path("never.sqlite")
        let store = try EventStore(path: path, now: .constant(Self.recorded))
        try store.insert(DeviceEvents.presentations(500))
        let result = try store.prune(RetentionPolicy(retentionMs: 0, byteBudget: 0), now: Self.recorded + 30 * Self.day)
        #expect(result.deleted == 0)
        #expect(try seqs(path).count == 1_000)
    }

    @Test func aStoreAReportRanOnIsNeverPruned() throws {
        // Given the prepared store after a report run (the reports module's watermark in meta)
        let (store, path, _) = try prepared()
        _ = try store.connection.run("INSERT INTO meta (key, value) VALUES ('reports.watermark_rowid', '800')")
        // Then pruning deletes nothing, however old
        let result = try store.prune(RetentionPolicy(retentionMs: 0, byteBudget: 0), now: Self.recorded + 30 * Self.day)
        #expect(result.deleted == 0)
        #expect(try seqs(path).count == 800)
    }
}
