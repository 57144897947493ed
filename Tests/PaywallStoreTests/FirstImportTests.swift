import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallTestSupport
import Testing

@testable import PaywallStore

/// A first import into an empty store writes without the unique index on `events.id` and builds it
/// before its first transaction commits: it must store exactly what the import with the index
/// stores, leave the index in place, and never leave a store without it.
struct FirstImportTests {
    let directory = TemporaryDirectory()

    /// The two overlapping files of the model test (repeats, lower-case repeats, conflicts near and
    /// far, bad lines), written for `label`.
    func files(_ label: String, seed: UInt64, ids: ImportFastPathTests.IDs = .random) throws -> [String] {
        var generator = SeededGenerator(seed: seed)
        let entries = ImportFastPathFixture.entries(count: 3_000, ids: ids, using: &generator)
        return try [Array(entries.prefix(1_900)), Array(entries.dropFirst(1_250))].enumerated().map {
            let path = directory.path("\(label)-\($0.offset).ndjson")
            try ($0.element.map(\.text).joined(separator: "\n") + "\n").write(
                toFile: path, atomically: false, encoding: .utf8)
            return path
        }
    }

    /// The first page of the id index: an index built after the rows starts after their pages.
    func indexRoot(_ connection: Connection) throws -> Int64 {
        try connection.scalar("SELECT rootpage FROM sqlite_schema WHERE name = ?1", [.text(Schema.eventsIDIndexName)])?
            .int64 ?? 0
    }

    func indexes(_ connection: Connection) throws -> [String] {
        try connection.all("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' ORDER BY 1") {
            $0.string(at: 0) ?? ""
        }
    }

    @Test(arguments: [1_000_000, 700, 1])
    func aFirstImportWithoutTheIdIndexStoresWhatTheImportWithItStores(eventsBeforeIndex: Int) throws {
        // Given the model test's two files, imported with the id index throughout (the reference)
        let paths = try files("first-\(eventsBeforeIndex)", seed: 0xF1257 + UInt64(eventsBeforeIndex))
        let reference = try EventStore(path: directory.path("reference-\(eventsBeforeIndex).sqlite"), now: .system)
        let options = ImportOptions(batchSize: 100, transactionEvents: 250, firstImportEventsBeforeIndex: 0)
        let expected = try Importer(store: reference, options: options).importFiles(paths)
        // When the same files go into an empty store whose first import leaves the index out for its
        // first `eventsBeforeIndex` events and lines (the whole first file, 700 of them, or one batch)
        let store = try EventStore(path: directory.path("first-\(eventsBeforeIndex).sqlite"), now: .system)
        var fast = options
        fast.firstImportEventsBeforeIndex = eventsBeforeIndex
        let result = try Importer(store: store, options: fast).importFiles(paths)
        // Then the counts, rows, rowids, outbox and quarantine are the reference's
        #expect(result == expected)
        #expect(expected.duplicates > 600 && expected.conflicts > 20 && expected.quarantined > 0)
        try StoreSnapshot(reference.connection).expectEqual(StoreSnapshot(store.connection), "first import")
        // And the unique index is back (built after the rows: its first page lies after theirs), the
        // only one on `events`, and the file is sound
        #expect(try indexRoot(store.connection) > indexRoot(reference.connection) + 10)
        #expect(try indexes(store.connection) == [Schema.eventsIDIndexName])
        #expect(try store.connection.scalar("PRAGMA integrity_check")?.string == "ok")
        let repeated = try store.connection.scalar("SELECT id FROM events ORDER BY seq LIMIT 1")?.string ?? ""
        #expect(throws: StorageError.self) {
            try store.connection.execute(
                "INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source) "
                    + "VALUES ('\(repeated)', 'paywall_shown', 0, 0, 'u', 1, 'p', 's')")
        }
    }

    @Test func aFirstImportOfIdsInOrderKeepsItsIndex() throws {
        // Given files of time-ordered ids (which append to the index at its end)
        let paths = try files("ordered", seed: 0x0D3, ids: .ordered)
        let reference = try EventStore(path: directory.path("ordered-reference.sqlite"), now: .system)
        let options = ImportOptions(batchSize: 100, transactionEvents: 250, firstImportEventsBeforeIndex: 0)
        let expected = try Importer(store: reference, options: options).importFiles(paths)
        // When they are imported into an empty store with the first import's shortcut on
        let store = try EventStore(path: directory.path("ordered.sqlite"), now: .system)
        let result = try Importer(store: store, options: ImportOptions(batchSize: 100, transactionEvents: 250))
            .importFiles(paths)
        // Then the index was kept (its first page where the migration put it) and the store is the same
        #expect(try indexRoot(store.connection) == indexRoot(reference.connection))
        #expect(result == expected)
        try StoreSnapshot(reference.connection).expectEqual(StoreSnapshot(store.connection), "ordered ids")
    }

    /// The id table keeps 32-bit hashes, not ids: with the real hash, with one that puts every id on
    /// one chain and with a two-bit one, it finds the rowid of every id recorded (through growth) and
    /// none for an id it never saw, asking the caller about each candidate.
    @Test(arguments: ["real", "constant", "two bits"])
    func theIDTableFindsEveryRecordedIDEvenWhenHashesCollide(hash: String) throws {
        let weak: ((UInt64, UInt64) -> UInt32)? =
            switch hash {
            case "constant": { _, _ in 7 }
            case "two bits": { _, low in UInt32(truncatingIfNeeded: low & 3) }
            default: nil
            }
        let table = FirstImportIDs(capacity: 8, hash: weak)  // 1,024 slots: grows three times
        var stored: [Int64: UUID] = [:]
        var rowid: Int64 = 40
        let ids = (0..<3_000).map { _ in UUID() }
        for id in ids {
            rowid += Int64.random(in: 1...3)  // rowids grow, with gaps
            table.insert(id, rowid: rowid)
            stored[rowid] = id
        }
        var asked = 0
        let isStored = { (id: UUID, rowid: Int64) -> Bool in
            asked += 1
            return stored[rowid] == id
        }
        for (expected, id) in stored {
            #expect(table.rowid(of: id) { isStored(id, $0) } == expected)
        }
        for _ in 0..<3_000 {
            let other = UUID()
            #expect(table.rowid(of: other) { isStored(other, $0) } == nil)
        }
        if weak == nil {
            #expect(asked < 3_010, "the real hash sent \(asked - 3_000) false candidates")
        } else {
            #expect(asked > 100_000, "the weak hash made chains of candidates")
        }
    }

    /// The import's writer with a table whose every id has the same hash: each repeated id is
    /// confirmed against the stored row's id, so duplicates and conflicts are what the index finds.
    @Test func aFirstImportWhoseIDHashesAllCollideStoresWhatTheIndexStores() throws {
        // Given 300 events with five exact repeats and three conflicting versions (another customer)
        var events = (0..<300).map { Fixtures.event($0) }
        events += [5, 17, 130, 17, 299].map { events[$0] }
        events += [9, 140, 250].map { index -> EventRecord in
            var changed = events[index]
            changed.userID = "someone-else"
            return changed
        }
        func write(into name: String, table: FirstImportIDs?) throws -> (InsertOutcome, StoreSnapshot) {
            let store = try EventStore(path: directory.path(name), now: .system)
            let importer = Importer(store: store, options: ImportOptions())
            let outcome = try store.connection.transaction { db in
                if table != nil { try db.execute(Schema.dropEventsIDIndex) }
                let written = try importer.write(
                    db, events, quarantine: [], provenance: EventProvenance(origin: "test", lines: nil),
                    recordedAt: 1_000, idsWithoutIndex: table)
                try table?.buildIndex(db)
                return written.outcome
            }
            return (outcome, try StoreSnapshot(store.connection))
        }
        // When they are written with the index, and without it through a table of colliding hashes
        let (expected, reference) = try write(into: "collide-reference.sqlite", table: nil)
        let (outcome, snapshot) = try write(
            into: "collide.sqlite", table: FirstImportIDs(capacity: 16, hash: { _, _ in 42 }))
        // Then both stored the same rows and found the same duplicates and conflicts
        #expect(expected.inserted == 300 && expected.duplicates == 5 && expected.conflicts == 3)
        let counts: [Int] = [outcome.inserted, outcome.duplicates, outcome.conflicts]
        #expect(counts == [expected.inserted, expected.duplicates, expected.conflicts])
        #expect(outcome.conflictEntries.map(\.payload) == expected.conflictEntries.map(\.payload))
        reference.expectEqual(snapshot, "colliding hashes")
    }

    @Test func idsAreInOrderWhenAtLeastThreePairsInFourIncrease() {
        let ordered = (0..<100).map { Fixtures.event($0, name: .paywallShown) }
        #expect(FirstImportIDs.inOrder(ordered))
        #expect(FirstImportIDs.inOrder([]) && FirstImportIDs.inOrder(Array(ordered.prefix(1))))
        #expect(!FirstImportIDs.inOrder(Array(ordered.reversed())))
        // 1 pair in 5 decreasing: in order; 1 in 2: not
        let oneInFive: [EventRecord] = (0..<100).map { (index: Int) in ordered[index % 5 == 4 ? index - 2 : index] }
        #expect(FirstImportIDs.inOrder(oneInFive))
        let halfAndHalf: [EventRecord] = (0..<100).map { (index: Int) in ordered[index % 2 == 1 ? index - 1 : index + 1]
        }
        #expect(!FirstImportIDs.inOrder(halfAndHalf))
    }

    @Test func aFailedFirstImportLeavesTheEmptyStoreWithItsIndex() throws {
        // Given an empty store and a file whose first transaction fails midway: a trigger planted on
        // `events` refuses the 500th row
        let paths = try files("failing", seed: 0xFA11)
        let store = try EventStore(path: directory.path("failing.sqlite"), now: .system)
        try store.connection.execute(
            """
            CREATE TRIGGER refuse_500th BEFORE INSERT ON events
            WHEN (SELECT count(*) FROM events) >= 499 BEGIN SELECT RAISE(ABORT, 'planted failure'); END;
            """)
        // When it is imported (the first transaction without the index holds the whole file)
        let importer = Importer(store: store, options: ImportOptions(batchSize: 100, transactionEvents: 250))
        #expect(throws: StorageError.self) { try importer.importNDJSON(path: paths[0]) }
        // Then nothing was stored and the unique index is there: the transaction rolled back whole
        #expect(try store.connection.scalar("SELECT count(*) FROM events")?.int64 == 0)
        #expect(try indexes(store.connection) == [Schema.eventsIDIndexName])
        // And once the trigger is gone the same file imports as into any empty store
        try store.connection.execute("DROP TRIGGER refuse_500th")
        let result = try importer.importNDJSON(path: paths[0])
        let fresh = try EventStore(path: directory.path("failing-reference.sqlite"), now: .system)
        #expect(try Importer(store: fresh).importNDJSON(path: paths[0]) == result)
        #expect(result.imported > 499)
        try StoreSnapshot(fresh.connection).expectEqual(StoreSnapshot(store.connection), "after the failure")
        #expect(try indexes(store.connection) == [Schema.eventsIDIndexName])
    }

    @Test func anImportIntoAStoreHoldingEventsKeepsTheIndexAndFindsStoredIds() throws {
        // Given a store holding the first file
        let paths = try files("second", seed: 0x5EC0)
        let store = try EventStore(path: directory.path("second.sqlite"), now: .system)
        let first = try Importer(store: store).importNDJSON(path: paths[0])
        // When the overlapping second file is imported (the store is not empty: the index stays)
        let second = try Importer(store: store).importNDJSON(path: paths[1])
        // Then its repeats of the first file's ids are found as duplicates and conflicts, as the
        // reference import with the index throughout finds them
        let reference = try EventStore(path: directory.path("second-reference.sqlite"), now: .system)
        let options = ImportOptions(firstImportEventsBeforeIndex: 0)
        #expect(try Importer(store: reference, options: options).importNDJSON(path: paths[0]) == first)
        #expect(try Importer(store: reference, options: options).importNDJSON(path: paths[1]) == second)
        #expect(second.duplicates > 0)
        try StoreSnapshot(reference.connection).expectEqual(StoreSnapshot(store.connection), "second import")
        #expect(try indexes(store.connection) == [Schema.eventsIDIndexName])
    }
}

/// The migration that moves `events.id`'s uniqueness from the table's definition to a named index.
struct EventsIDIndexMigrationTests {
    let directory = TemporaryDirectory()

    @Test func aStoreOfThePreviousVersionKeepsEveryRowAndRowidAndGetsTheNamedIndex() throws {
        // Given a store migrated up to the migration before (its ids unique by constraint), holding
        // events with rowid gaps and context columns, an outbox row and an open dead letter
        let path = directory.path("previous.sqlite")
        let previous = MigrationGroup(owner: "store", Array(Schema.storeMigrations.migrations.dropLast()))
        #expect(Schema.storeMigrations.migrations.last?.name == "events-id-index")
        let old = try Migrator([previous], legacy: Schema.legacyIdentifiers, identity: Schema.identity).open(
            path: path)
        let ids = (0..<6).map { String(format: "01990000-0000-7000-8000-%012X", $0) }
        try old.transaction { db in
            for (index, id) in ids.enumerated() {
                try db.run(
                    """
                    INSERT INTO events (seq, id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id,
                                        source, app_version, platform)
                    VALUES (?1, ?2, 'paywall_shown', ?3, ?3, 'u', 2, ?2, 'onboarding', '1.2.3', 'ios')
                    """,
                    [.integer(Int64(index * 3 + 1)), .text(id), .integer(1_764_000_000_000 + Int64(index))])
            }
            try db.run("INSERT INTO outbox (event_rowid, occurred_at) VALUES (4, 1)")
            try db.run(
                "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, 400, 'r', 1)", [.text(ids[2])]
            )
        }
        let rows = { (connection: Connection) in
            try connection.all("SELECT * FROM events ORDER BY seq") { row in (0..<22).map { row.value(at: $0) } }
        }
        let before = try rows(old)
        #expect(before.count == 6)
        #expect(try old.scalar("SELECT count(*) FROM report_dead_buckets")?.int64 == 1)
        // When the current program opens it
        let store = try EventStore(path: path, now: .system)
        // Then every row is the same, with the same rowid, in the same column order
        #expect(try rows(store.connection) == before)
        #expect(
            try store.connection.all("SELECT name FROM pragma_table_info('events') ORDER BY cid") {
                $0.string(at: 0) ?? ""
            }.joined(separator: ",")
                == "id,name,occurred_at,recorded_at,user_id,session_id,catalog_version,pw_id,source,offering_id,"
                + "placement_id,product,result,via,open_s,seq,app_version,build,platform,os_version,sdk_version,locale")
        // And the ids are unique through the named index alone
        #expect(
            try store.connection.all("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events'") {
                $0.string(at: 0) ?? ""
            } == [Schema.eventsIDIndexName])
        #expect(try store.insert([Fixtures.event(0, name: .paywallShown)]) == 1)
        #expect(throws: StorageError.self) {
            try store.connection.run(
                "INSERT INTO events (id, name, occurred_at, recorded_at, user_id, catalog_version, pw_id, source) "
                    + "VALUES (?1, 'paywall_shown', 0, 0, 'u', 1, 'p', 's')", [.text(ids[0])])
        }
        // And the dead letters' triggers, which name `events`, still find the events: a second
        // refusal of another impression counts in its bucket
        try store.connection.run(
            "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?1, 400, 'r', 2)", [.text(ids[5])])
        #expect(try store.connection.scalar("SELECT sum(dead) FROM report_dead_buckets")?.int64 == 2)
        #expect(try store.connection.scalar("PRAGMA integrity_check")?.string == "ok")
        #expect(try store.connection.scalar("PRAGMA legacy_alter_table")?.int64 == 0)
    }
}
