import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

struct ImporterTests {
    let directory = TemporaryDirectory()
    var storePath: String { directory.path("store.sqlite") }

    func write(_ lines: [String], to name: String) throws -> String {
        let path = directory.path(name)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    func quarantineReasons(_ store: EventStore) throws -> [Int: String] {
        Dictionary(
            uniqueKeysWithValues: try store.connection.all("SELECT line, reasons FROM quarantine") {
                (Int($0.int64(at: 0)), $0.string(at: 1) ?? "")
            })
    }

    @Test func importsValidLinesAndQuarantinesEachKindOfBadLineWithItsReason() throws {
        // Given a file mixing good events with every kind of bad line
        let good = (0..<4).map { Fixtures.event($0) }
        var missingSource = NDJSONLine.encode(Fixtures.event(10, name: .paywallShown))
        missingSource = missingSource.replacingOccurrences(of: #","source":"onboarding""#, with: "")
        let lines =
            good.map(NDJSONLine.encode) + [
                #"{"id": "not json"#,  // 5 malformed
                NDJSONLine.encode(Fixtures.event(11, name: .paywallPlanSelected)).replacingOccurrences(
                    of: "paywall_plan_selected", with: "paywall_exploded"),  // 6
                missingSource,  // 7 required
                NDJSONLine.encode(Fixtures.event(12, name: .paywallClosed)).replacingOccurrences(
                    of: "close_button", with: "auto"),  // 8 rule
                NDJSONLine.encode(Fixtures.event(13)).replacingOccurrences(
                    of: #""catalog_version":2"#, with: #""catalog_version":"2""#),  // 9 type
                "",  // 10 blank: skipped
                "[1,2,3]",  // 11 not an object
            ]
        let path = try write(lines, to: "mixed.ndjson")
        let store = try EventStore(path: storePath, now: .constant(Fixtures.baseTime + 5_000))
        // When it is imported
        let result = try Importer(store: store).importFiles([path])
        // Then the good events are stored, each bad line is quarantined with a reason naming the problem
        #expect(result == ImportResult(imported: 4, duplicates: 0, quarantined: 6))
        #expect(result.refusedAny)
        let reasons = try quarantineReasons(store)
        #expect(Set(reasons.keys) == [5, 6, 7, 8, 9, 11])
        #expect(reasons[5]?.contains("malformed JSON") == true)
        #expect(reasons[6]?.contains("name") == true && reasons[6]?.contains("paywall_exploded") == true)
        #expect(reasons[7]?.contains("source") == true)
        #expect(reasons[8]?.contains("via") == true)
        #expect(reasons[9]?.contains("catalog_version") == true)
        let payload = try store.connection.scalar("SELECT payload FROM quarantine WHERE line = 5")?.string
        #expect(payload == #"{"id": "not json"#)
        #expect(try store.connection.scalar("SELECT origin FROM quarantine WHERE line = 5")?.string == path)
        #expect(try store.stats().quarantined == 6)
        // When the same file is imported again, and a copy of it under another name
        let copy = try write(lines, to: "mixed-copy.ndjson")
        let again = try Importer(store: store).importFiles([path, copy])
        // Then nothing is added: the good events are duplicates and the bad lines are already quarantined
        // (still reported, and still exit 65, but not stored twice)
        #expect(again == ImportResult(imported: 0, duplicates: 8, quarantined: 12, alreadyQuarantined: 12))
        #expect(again.refusedAny)
        #expect(try store.stats().quarantined == 6)
        #expect(try store.connection.scalar("SELECT count(DISTINCT origin) FROM quarantine")?.int64 == 1)
    }

    @Test func aLineLongerThanTheLimitIsQuarantinedWithoutBeingBuffered() throws {
        // Given a 3 MB line between two good ones, read in 64 KiB chunks with a 1 MiB limit
        let huge = #"{"id":""# + String(repeating: "x", count: 3_000_000) + #""}"#
        let path = try write(
            [NDJSONLine.encode(Fixtures.event(0)), huge, NDJSONLine.encode(Fixtures.event(1))], to: "huge.ndjson")
        let store = try EventStore(path: storePath, now: .system)
        let options = ImportOptions(maxLineBytes: 1 << 20, chunkBytes: 64 << 10)
        // When it is imported
        let result = try Importer(store: store, options: options).importNDJSON(path: path)
        // Then the neighbours are stored and the long line is quarantined with its length and a short prefix
        #expect(result == ImportResult(imported: 2, duplicates: 0, quarantined: 1))
        let reasons = try #require(try quarantineReasons(store)[2])
        #expect(reasons.contains("\(huge.utf8.count) bytes"))
        #expect(reasons.contains("1048576-byte limit"))
        let payload = try #require(try store.connection.scalar("SELECT payload FROM quarantine")?.string)
        #expect(payload.utf8.count == 512)
    }

    @Test func duplicatesAcrossFilesAreCountedAndAReimportAddsNothing() throws {
        // Given two files sharing 50 events, and one event repeated inside the first
        let events = (0..<150).map { Fixtures.event($0) }
        let first = try write(events[0..<100].map(NDJSONLine.encode) + [NDJSONLine.encode(events[0])], to: "a.ndjson")
        let second = try write(events[50..<150].map(NDJSONLine.encode), to: "b.ndjson")
        let store = try EventStore(path: storePath, now: .system)
        let importer = Importer(store: store, options: ImportOptions(batchSize: 7))
        // When both are imported, then both again
        let once = try importer.importFiles([first, second])
        let again = try importer.importFiles([first, second])
        // Then each event is stored once, impressions are pending in the outbox once, and the re-import adds nothing
        #expect(once == ImportResult(imported: 150, duplicates: 51, quarantined: 0))
        #expect(again == ImportResult(imported: 0, duplicates: 201, quarantined: 0))
        let stats = try store.stats()
        #expect(stats.totalEvents == 150)
        #expect(stats.outboxPending == 38)
        #expect(stats.eventsByName["paywall_shown"] == 38)
    }

    @Test func noForwardMarksImportedImpressionsDelivered() throws {
        let path = try write((0..<8).map { NDJSONLine.encode(Fixtures.event($0)) }, to: "sent.ndjson")
        let store = try EventStore(path: storePath, now: .constant(Fixtures.baseTime + 42))
        _ = try Importer(store: store, options: ImportOptions(forward: false)).importNDJSON(path: path)
        let stats = try store.stats()
        #expect(stats.outboxPending == 0)
        #expect(stats.outboxDelivered == 2)
        #expect(try store.connection.scalar("SELECT count(*) FROM deliveries")?.int64 == 2)
        #expect(
            try store.connection.scalar("SELECT min(delivered_at) FROM deliveries")?.int64 == Fixtures.baseTime + 42)
    }

    @Test func importsAnotherStoresDatabaseValidatingEachRow() async throws {
        // Given another store with 20 events, one row of which was damaged by hand
        let otherPath = directory.path("other.sqlite")
        let other = try EventStore(path: otherPath, now: .system)
        let events = (0..<20).map { Fixtures.event($0) }
        try other.insert(events)
        try other.connection.execute("UPDATE events SET via = 'teleport' WHERE rowid = 4")
        let store = try EventStore(path: storePath, now: .system)
        try store.insert([events[0]])
        var reported: [ImportProgress] = []
        // When it is imported (by path, detected as SQLite)
        let result = try Importer(store: store, options: ImportOptions(batchSize: 6)).importFiles([otherPath]) {
            reported.append($0)
        }
        // Then 18 new events, 1 duplicate, 1 quarantined row with its reason and JSON payload
        #expect(result == ImportResult(imported: 18, duplicates: 1, quarantined: 1))
        let reasons = try #require(try quarantineReasons(store)[4])
        #expect(reasons.contains("via"))
        let payload = try #require(try store.connection.scalar("SELECT payload FROM quarantine")?.string)
        #expect(payload.contains(#""via":"teleport""#))
        #expect(reported.last?.done == 20 && reported.last?.total == 20)
        // And the source is left as it was
        #expect(try Fixtures.count(other.connection, "SELECT count(*) FROM events") == 20)
        // (only `main` is left: the other store was detached; `temp` is the connection's own scratch schema)
        #expect(
            try Fixtures.count(store.connection, "SELECT count(*) FROM pragma_database_list WHERE name <> 'temp'") == 1)
    }

    @Test func missingInputAndForeignDatabasesAreTypedErrors() throws {
        let store = try EventStore(path: storePath, now: .system)
        let importer = Importer(store: store)
        let missing = try #require(throws: ImportError.self) {
            _ = try importer.importFiles([directory.path("nope.ndjson")])
        }
        #expect(missing.kind == .missingInput)
        let foreign = directory.path("foreign.sqlite")
        try Connection(path: foreign).execute("CREATE TABLE things (x INTEGER)")
        let notStore = try #require(throws: ImportError.self) { _ = try importer.importFiles([foreign]) }
        #expect(notStore.kind == .notAStore)
        #expect(notStore.description.contains("not a PaywallAnalytics store"))
    }
}
