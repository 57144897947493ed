import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The fold's hash tables (customer/placement keys by bytes, fold positions by UUID) against a
/// plain `Dictionary`, through many growths.
struct RollupTablesTests {
    @Test func byteKeysFindExactlyWhatWasInsertedThroughGrowth() {
        // Given 20 000 names (empty, short, long, sharing prefixes, non-ASCII) with keys
        let names =
            [""]
            + (0..<20_000).map { index -> String in
                index % 3 == 0
                    ? "user-\(index)"
                    : index % 3 == 1 ? "ü-\(index)-" + String(repeating: "x", count: index % 40) : "\(index)"
            }
        var table = ByteKeyTable()
        for (key, name) in names.enumerated() {
            var name = name
            name.withUTF8 { table.insert(UnsafeRawBufferPointer($0), key: Int64(key)) }
        }
        // Then every name finds its own key, and names never inserted find nothing
        for (key, name) in names.enumerated() {
            var name = name
            #expect(name.withUTF8 { table.key(UnsafeRawBufferPointer($0)) } == Int64(key))
        }
        for missing in ["user-1", "user-20001", "ü-1-", "x"] {
            var missing = missing
            #expect(missing.withUTF8 { table.key(UnsafeRawBufferPointer($0)) } == nil)
        }
        #expect(table.count == names.count)
    }

    @Test func uuidSlotsKeepTheFirstPositionOfEveryKeyThroughGrowth() {
        // Given 30 000 keys, many sharing their high half, each offered twice
        var random = SeededGenerator(seed: 9)
        var keys: [UUIDKey] = []
        for index in 0..<30_000 {
            let high: UInt64 = index % 2 == 0 ? 42 : random.next()
            let low: UInt64 = index % 5 == 0 ? UInt64(index) : random.next()
            keys.append(UUIDKey(high: high, low: low))
        }
        var slots = UUIDSlots(capacity: 1)
        var expected: [UUIDKey: Int] = [:]
        for (position, key) in keys.enumerated() {
            #expect(slots.position(of: key, orInsert: position) == expected[key])
            if expected[key] == nil { expected[key] = position }
        }
        // Then a second offer finds the position stored the first time
        for (position, key) in keys.enumerated().reversed() {
            let found: Int? = slots.position(of: key, orInsert: 1_000_000 + position)
            #expect(found == expected[key])
        }
    }
}

/// Provisional keys: a chunk read before the key tables are loaded gets the same keys it would
/// have got with the tables there.
struct DeferredReportKeysTests {
    @Test func provisionalKeysResolveToTheKeysOfTheLoadedTables() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given stored keys for two customers and one placement
        let connection = try ReportSchema.open(path: folder.path("db"))
        try connection.execute(
            """
            INSERT INTO report_customers (key, user_id) VALUES (1, 'ann'), (2, 'bob');
            INSERT INTO report_placements (key, placement) VALUES (1, 'home');
            """)
        // When a deferred reader hands out keys for known and unknown names (one unknown twice)
        var deferred = ReportKeys.deferred()
        let names = ["bob", "cyd", "ann", "cyd"]
        let provisional = try names.map { name in
            try connection.all("SELECT ?, 'settings'", [.text(name)]) { row in
                (deferred.customer(row, 0), deferred.placement(row, 1))
            }[0]
        }
        var folds = provisional.enumerated().map { index, keys in
            PresentationFold(
                pwID: UUIDKey(high: 1, low: UInt64(index)), firstAt: 0, firstID: .zero, placementKey: keys.1,
                customerKey: keys.0)
        }
        // (and one fold whose customer key is a real one already)
        folds.append(
            PresentationFold(
                pwID: UUIDKey(high: 2, low: 0), firstAt: 0, firstID: .zero, placementKey: 1, customerKey: 7))
        var loaded = ReportKeys()
        try connection.withDatabase { try loaded.load($0) }
        loaded.resolveCustomers(of: &folds, names: deferred.takePendingCustomers())
        let customers = folds.prefix(names.count).map(\.customerKey)
        let placements = provisional.map { loaded.resolve(placement: $0.1, from: deferred) }
        // Then every provisional key was negative, known names get their stored keys, the new
        // customer and the new placement get one new key each, and only they are new names
        #expect(provisional.allSatisfy { $0.0 < 0 && $0.1 < 0 })
        #expect(customers == [2, 3, 1, 3])
        #expect(Set(placements) == [2])
        try connection.transaction { try loaded.takeNew().insert($0) }
        #expect(
            try connection.all("SELECT key, user_id FROM report_customers ORDER BY key") {
                "\($0.int64(at: 0))=\($0.string(at: 1)!)"
            }
                == ["1=ann", "2=bob", "3=cyd"])
        #expect(
            try connection.all("SELECT key, placement FROM report_placements ORDER BY key") {
                "\($0.int64(at: 0))=\($0.string(at: 1)!)"
            }
                == ["1=home", "2=settings"])
        // And a key that is not provisional is kept as it is
        #expect(folds.last?.customerKey == 7)
    }

    /// A chunk's customers resolved many at a time (with the prefetch hints) get exactly the keys a
    /// plain model gives (a stored name its stored key, a new name the next key at its first fold),
    /// while the table grows under the lookups.
    @Test func customersResolvedManyAtATimeGetTheKeysOfLookupsOneAtATime() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        // Given 3,000 stored customers
        let connection = try ReportSchema.open(path: folder.path("db"))
        try connection.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO report_customers (key, user_id) SELECT i, 'stored-' || i FROM n;
            """)
        // And 20,000 folds in a random order naming stored customers, 5,000 new ones (most of them
        // several times, some long and non-ASCII) and the empty name, two with real keys already
        var random = SeededGenerator(seed: 31)
        let names = (0..<20_000).map { index -> String in
            switch random.next() % 3 {
            case 0: "stored-\(random.next() % 3_000 + 1)"
            case 1: index % 997 == 0 ? "" : "new-\(random.next() % 5_000)"
            default: "new-\(random.next() % 5_000)-" + String(repeating: "é", count: Int(random.next() % 30))
            }
        }
        let realKeys: [Int: Int64] = [5: 2, 19_999: 7]
        var keys = ReportKeys()
        try connection.withDatabase { try keys.load($0) }
        var folds = try names.enumerated().map { index, name in
            try connection.all("SELECT ?", [.text(name)]) { row in
                PresentationFold(
                    pwID: UUIDKey(high: 1, low: UInt64(index)), firstAt: 0, firstID: .zero, placementKey: 1,
                    customerKey: keys.customer(row, 0))
            }[0]
        }
        for (index, key) in realKeys { folds[index].customerKey = key }
        // When they are resolved all at once
        keys.resolveCustomers(of: &folds, names: keys.takePendingCustomers())
        // Then every fold has the model's key (one lookup at a time, in fold order), the real keys kept
        var modelKeys = Dictionary(uniqueKeysWithValues: (1...3_000).map { ("stored-\($0)", Int64($0)) })
        let expected = names.enumerated().map { index, name -> Int64 in
            if let real = realKeys[index] { return real }
            if let key = modelKeys[name] { return key }
            let key = Int64(modelKeys.count + 1)
            modelKeys[name] = key
            return key
        }
        #expect(folds.map(\.customerKey) == expected)
        #expect(realKeys.allSatisfy { folds[$0.key].customerKey == $0.value })
        // And the new names stored with their keys are the model's, which with the stored ones name
        // each fold's own customer
        try connection.transaction { try keys.takeNew().insert($0) }
        let afterBatch = try connection.all("SELECT key, user_id FROM report_customers ORDER BY key") {
            ($0.int64(at: 0), $0.string(at: 1)!)
        }
        #expect(
            afterBatch.map { "\($0)=\($1)" } == modelKeys.sorted { $0.value < $1.value }.map { "\($0.value)=\($0.key)" }
        )
        #expect(afterBatch.count > 3_000 + 4_000)
        let nameOfKey = Dictionary(uniqueKeysWithValues: afterBatch)
        for (index, fold) in folds.enumerated() where realKeys[index] == nil {
            #expect(nameOfKey[fold.customerKey] == names[index])
        }
        // And the kept names were handed over: the next provisional key starts over
        _ = try connection.all("SELECT 'ann'") { row in #expect(keys.customer(row, 0) == -1) }
    }
}
