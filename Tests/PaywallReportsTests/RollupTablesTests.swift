import PaywallCore
@testable import PaywallReports
import Testing

/// The fold's hash tables (customer/placement keys by bytes, fold positions by UUID) against a
/// plain `Dictionary`, through many growths.
struct RollupTablesTests {
    @Test func byteKeysFindExactlyWhatWasInsertedThroughGrowth() {
        // Given 20 000 names (empty, short, long, sharing prefixes, non-ASCII) with keys
        let names = [""] + (0..<20_000).map { index -> String in
            index % 3 == 0 ? "user-\(index)" : index % 3 == 1 ? "ü-\(index)-" + String(repeating: "x", count: index % 40) : "\(index)"
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
