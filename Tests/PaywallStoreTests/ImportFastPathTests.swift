import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// The import against a model of its input: the stored rows, rowids in file order, outbox,
/// deliveries, duplicates, conflicts and quarantine, for ordered, random and mixed ids, across many
/// transaction boundaries, with small and large transactions.
struct ImportFastPathTests {
    enum IDs: String, CaseIterable, Sendable { case ordered, random, mixed }

    let directory = TemporaryDirectory()

    @Test(arguments: IDs.allCases)
    func anImportStoresWhatTheModelOfItsInputSays(ids: IDs) throws {
        // Given two overlapping files with exact repeats, repeats in lower case, conflicts (near
        // and far, within a transaction and across), a conflict between two new versions and bad lines
        var generator = SeededGenerator(seed: 0x5EED + UInt64(ids.rawValue.count))
        let entries = ImportFastPathFixture.entries(count: 3_000, ids: ids, using: &generator)
        let files = [Array(entries.prefix(1_900)), Array(entries.dropFirst(1_250))]
        let paths = try files.enumerated().map { try write($0.element.map(\.text), to: "\(ids)-\($0.offset).ndjson") }
        let expected = ImportFastPathFixture.model(files)
        // When they are imported, 250 events per transaction (batches of 100), forwarding or not
        for forward in [true, false] {
            let store = try EventStore(path: directory.path("\(ids)-\(forward).sqlite"), now: .system)
            let options = ImportOptions(forward: forward, batchSize: 100, transactionEvents: 250)
            var result = try Importer(store: store, options: options).importFiles(paths)
            let stored = try StoreSnapshot(store.connection)
            // Then the counts are the model's, the rowids 1…n in file order, the first version of each id kept
            #expect(result.alreadyQuarantined > 0)
            result.alreadyQuarantined = 0
            #expect(result == expected.result)
            #expect(expected.result.conflicts > 20 && expected.result.duplicates > 600)
            #expect(stored.events.map(\.id) == expected.ids)
            #expect(stored.events.map(\.seq) == Array(1...Int64(stored.events.count)))
            #expect(
                stored.quarantine.count == expected.quarantineRows, "bad lines and conflicts of the overlap: once each")
        }
    }

    @Test(arguments: IDs.allCases)
    func thePlainPathsLargeStoreTransactionsStoreWhatSmallOnesStore(ids: IDs) throws {
        // Given the same two overlapping files, and a reference import of 250 events per transaction
        // (the id index kept throughout: a first import's first transaction is sized apart)
        var generator = SeededGenerator(seed: 0x1A26E + UInt64(ids.rawValue.count))
        let entries = ImportFastPathFixture.entries(count: 3_000, ids: ids, using: &generator)
        let files = [Array(entries.prefix(1_900)), Array(entries.dropFirst(1_250))]
        let paths = try files.enumerated().map {
            try write($0.element.map(\.text), to: "large-\(ids)-\($0.offset).ndjson")
        }
        let small = try EventStore(path: directory.path("large-\(ids)-small.sqlite"), now: .system)
        let (smallResult, smallTransactions) = try importCounting(
            paths, into: small,
            ImportOptions(batchSize: 100, cacheBytes: 0, transactionEvents: 250, firstImportEventsBeforeIndex: 0))
        // When the same files go into a store whose id index (estimated) outgrows a 64 KiB cache, so
        // the import takes 1,000 events per transaction
        let large = try EventStore(path: directory.path("large-\(ids)-large.sqlite"), now: .system)
        let (largeResult, largeTransactions) = try importCounting(
            paths, into: large,
            ImportOptions(
                batchSize: 100, cacheBytes: 64 << 10, transactionEvents: 250, largeStoreTransactionEvents: 1_000,
                firstImportEventsBeforeIndex: 0))
        // Then it committed fewer, larger transactions (a progress report after each, and one at the end)
        #expect(
            largeTransactions * 2 < smallTransactions, "\(largeTransactions) vs \(smallTransactions) progress reports")
        // And stored exactly the same rows, rowids, outbox and quarantine, with the same counts
        #expect(largeResult == smallResult)
        try StoreSnapshot(small.connection).expectEqual(
            try StoreSnapshot(large.connection), "\(ids) large transactions")
    }

    /// Imports `paths` in order; the summed counts and the progress reports (one per transaction,
    /// and one at the end of each file).
    func importCounting(_ paths: [String], into store: EventStore, _ options: ImportOptions) throws -> (
        ImportResult, Int
    ) {
        var reports = 0
        var total = ImportResult()
        for path in paths {
            let result = try Importer(store: store, options: options).importNDJSON(path: path) { _ in reports += 1 }
            total.imported += result.imported
            total.duplicates += result.duplicates
            total.conflicts += result.conflicts
            total.quarantined += result.quarantined
        }
        return (total, reports)
    }

    @Test func aRecordedEventReusingAStoredIdWithOtherContentIsQuarantinedAndReported() async throws {
        // Given a stored event
        let store = try EventStore(path: directory.path("recorder.sqlite"), now: .system)
        let event = Fixtures.event(0, name: .paywallShown)
        try store.insert([event])
        let log = DiagnosticsLog()
        let recorder = Recorder(store: store, diagnostics: log.hook)
        // When the recorder gets the same id with another source, and an identical copy
        var other = event
        other.properties.source = "settings"
        recorder.record(other)
        recorder.record(event)
        try await recorder.close()
        // Then the stored row is untouched, the new version is quarantined, the hook says so
        #expect(try store.connection.scalar("SELECT source FROM events")?.string == "onboarding")
        #expect(try Fixtures.count(store.connection, "SELECT count(*) FROM events") == 1)
        let origin = try store.connection.scalar("SELECT origin FROM quarantine")?.string
        #expect(origin == "recorder")
        let reasons = try store.connection.scalar("SELECT reasons FROM quarantine")?.string ?? ""
        #expect(reasons.contains("differs in source"))
        #expect(log.all.contains(.conflictsQuarantined(count: 1)))
    }

    func write(_ lines: [String], to name: String) throws -> String {
        let path = directory.path(name)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}

/// What an import left in a store, `recorded_at` aside (the store's clock).
struct StoreSnapshot: Equatable {
    struct Event: Equatable {
        var seq: Int64
        var id: String
        var columns: [SQLValue]
    }

    var events: [Event]
    var outbox: [[SQLValue]]
    var deliveries: [[SQLValue]]
    var quarantine: [[SQLValue]]

    init(_ connection: Connection) throws {
        events = try connection.all(
            """
            SELECT seq, id, name, occurred_at, user_id, session_id, catalog_version, pw_id, source, offering_id,
                   placement_id, product, result, via, open_s FROM events ORDER BY seq
            """
        ) { row in
            Event(seq: row.int64(at: 0), id: row.string(at: 1) ?? "", columns: (2..<15).map { row.value(at: $0) })
        }
        outbox = try connection.all("SELECT event_rowid, occurred_at, attempts FROM outbox ORDER BY event_rowid") {
            row in
            (0..<3).map { row.value(at: $0) }
        }
        deliveries = try connection.all("SELECT event_rowid, occurred_at FROM deliveries ORDER BY event_rowid") { row in
            (0..<2).map { row.value(at: $0) }
        }
        quarantine = try connection.all("SELECT reasons, payload, origin, line FROM quarantine ORDER BY seq") { row in
            (0..<4).map { row.value(at: $0) }
        }
    }

    /// Expects `other` to equal this snapshot, naming the first difference of each table.
    func expectEqual(_ other: StoreSnapshot, _ label: String) {
        Self.expectEqual(events, other.events, "\(label): events")
        Self.expectEqual(outbox, other.outbox, "\(label): outbox")
        Self.expectEqual(deliveries, other.deliveries, "\(label): deliveries")
        Self.expectEqual(quarantine, other.quarantine, "\(label): quarantine")
    }

    static func expectEqual<Row: Equatable>(_ lhs: [Row], _ rhs: [Row], _ label: String) {
        #expect(lhs.count == rhs.count, "\(label): \(lhs.count) rows vs \(rhs.count)")
        if let index = (0..<min(lhs.count, rhs.count)).first(where: { lhs[$0] != rhs[$0] }) {
            Issue.record("\(label) differ at row \(index): \(lhs[index]) vs \(rhs[index])")
        }
    }
}
