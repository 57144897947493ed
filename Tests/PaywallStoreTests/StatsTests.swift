import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct StatsTests {
    @Test func countsEventsPerNameTheDateRangeOutboxQuarantineDeadLettersAndDrops() throws {
        // Given a store with 8 events (2 per name), one impression delivered and one dead,
        // two quarantined lines, a dead letter and two drop records
        let directory = TemporaryDirectory()
        let store = try EventStore(path: directory.path("stats.sqlite"), now: .constant(Fixtures.baseTime))
        let events = (0..<8).map { Fixtures.event($0) }
        try store.insert(events)
        try store.insert([], droppedAtBound: 3)
        try store.insert([], droppedAtBound: 4)
        try store.quarantine([
            QuarantineEntry(quarantinedAt: 1, reasons: ["a"], payload: "{}"),
            QuarantineEntry(quarantinedAt: 2, reasons: ["b"], payload: "[]"),
        ])
        let impressions = events.filter { $0.name == .paywallShown }.map(\.id)
        let outbox = SQLiteOutbox(store: store)
        try outbox.markDelivered([impressions[0]], at: 5)
        try outbox.deadLetter([impressions[1]], status: 400, reason: "bad", at: 6)
        // When the statistics are read
        let stats = try store.stats()
        // Then every count matches
        #expect(
            stats
                == StoreStats(
                    eventsByName: [
                        "paywall_shown": 2, "paywall_plan_selected": 2, "paywall_purchase_started": 2,
                        "paywall_closed": 2,
                    ],
                    firstOccurredAt: Fixtures.baseTime, lastOccurredAt: Fixtures.baseTime + 7,
                    outboxPending: 0, outboxDelivered: 1, outboxDead: 1, quarantined: 2, deadLetters: 1,
                    droppedAtBound: 7))
        #expect(stats.totalEvents == 8)
    }

    @Test func anEmptyStoreHasNoDateRange() throws {
        let directory = TemporaryDirectory()
        let stats = try EventStore(path: directory.path("empty.sqlite"), now: .system).stats()
        #expect(stats == StoreStats())
    }
}

struct ReadOnlyOpenTests {
    @Test func statsCanReadAStoreOpenedReadOnlyAndAMissingStoreIsATypedError() throws {
        // Given a store with two events
        let directory = TemporaryDirectory()
        let path = directory.path("ro.sqlite")
        try EventStore(path: path, now: .system).insert([Fixtures.event(0), Fixtures.event(1)])
        // When it is opened read-only (as `stats` does), its statistics are read
        let reader = try EventStore(path: path, options: .readOnly, now: .system)
        #expect(try reader.stats().totalEvents == 2)
        let writeError = #expect(throws: StorageError.self) { try reader.insert([Fixtures.event(2)]) }
        #expect(writeError?.kind == .readOnly)
        // And a missing file is not created but refused
        let missing = directory.path("missing.sqlite")
        let error = try #require(throws: StorageError.self) {
            _ = try EventStore(path: missing, options: .readOnly, now: .system)
        }
        #expect(error.kind == .cannotOpen)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
