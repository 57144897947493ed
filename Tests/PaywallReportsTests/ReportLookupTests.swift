import Foundation
import PaywallCore
import PaywallSQLite
import PaywallSimulation
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The lookups that replace `Dictionary`, `String` and sorting on the reports' hot paths
/// (``TextTable``, ``IntSlots``, ``DistinctCounter``, ``ListRuns``), held to what the plain
/// structures give.
struct ReportLookupTests {
    @Test func aTextTableGivesARowsTextAndTheSameStringOneIndexAndKeepsExactScalarsApart() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let connection = try ReportSchema.open(path: folder.path("db"))
        // Given 40 texts (more than the 16 the former lookup compared first), among them two
        // canonically equivalent spellings of "café", the empty text and a 300-byte text
        var texts = (0..<36).map { "text-\($0)" }
        texts += ["caf\u{E9}", "cafe\u{301}", "", String(repeating: "ü", count: 150)]
        var table = TextTable()
        // When each is looked up from a SQLite row, again from a row, then as a String, shuffled
        var random = SeededGenerator(seed: 4)
        var fromRows: [ExactText: Int32] = [:]  // String keys would take the two spellings for one
        for text in texts.shuffled(using: &random) + texts.shuffled(using: &random) {
            let index = try connection.all("SELECT ?", [.text(text)]) { row in table.index(row, 0) }[0]
            #expect(fromRows[ExactText(text)].map { $0 == index } ?? true, "a text found again keeps its index")
            fromRows[ExactText(text)] = index
        }
        let fromStrings = texts.shuffled(using: &random).map { ($0, table.index($0)) }
        let nulls = try connection.all("SELECT NULL") { row in (table.index(row, 0), table.index(orEmpty: row, 0)) }[0]
        // Then a String finds its row's index, every index holds its text exactly, the two spellings
        // are two texts, NULL is no text and an empty context field is the empty text
        for (text, index) in fromStrings {
            #expect(index == fromRows[ExactText(text)])
            #expect(table[index].map { ExactText.same($0, text) } == true)
        }
        #expect(table.index("caf\u{E9}") != table.index("cafe\u{301}"))
        #expect(Set(fromStrings.map(\.1)).count == texts.count)
        #expect(table.texts.count == texts.count, "nothing was added twice")
        #expect(nulls.0 == TextTable.null)
        #expect(nulls.1 == table.index(""))
    }

    @Test func intSlotsNumberKeysInOrderOfFirstSightThroughGrowth() {
        // Given 20,000 keys drawn from a range that repeats them, some packed segment keys among them
        var random = SeededGenerator(seed: 11)
        let keys = (0..<20_000).map { index in
            index % 7 == 0
                ? Int(random.next() % 8) << 40 | Int(random.next() % 5) << 20 | Int(random.next() % 9)
                : Int(random.next() % 6_000)
        }
        // When each is looked up in IntSlots and in a Dictionary numbering keys as they first come
        var slots = IntSlots()
        var reference: [Int: Int] = [:]
        for key in keys {
            let (slot, isNew) = slots.slot(key)
            let expected = reference[key] ?? reference.count
            // Then both give the same slot, and a slot is new exactly when the key first comes
            #expect(slot == expected)
            #expect(isNew == (reference[key] == nil))
            if reference[key] == nil { reference[key] = expected }
        }
        #expect(slots.count == reference.count)
    }

    @Test func aDistinctCounterCountsLikeASetListAfterList() {
        // Given lists of customer indexes with repeats, one empty, one with indexes beyond the counter's size
        var random = SeededGenerator(seed: 5)
        var lists: [[UInt32]] = (0..<30).map { index in
            (0..<Int(random.next() % 3_000)).map { _ in UInt32(random.next() % UInt64(500 + index * 40)) }
        }
        lists.append([])
        lists.append([70_000, 3, 70_000, 64, 63, 65_536])
        // When one counter sized for 1,000 customers counts them all, one after another
        var counter = DistinctCounter(capacity: 1_000)
        for values in lists + lists.reversed() {
            // Then each count is the size of the list's set: nothing left over from the list before
            #expect(counter.count(values) == Int64(Set(values).count))
        }
    }

    @Test func listRunsGiveTheDistinctViewersAndPercentilesOfTheirListsJoinedAndSorted() {
        // Given groups of lists as a day's segments give them (sorted viewers, sorted open_s, with
        // repeats across lists), some empty, some groups with one value, one with indexes beyond
        // the counter's size
        var random = SeededGenerator(seed: 8)
        var groups: [[PresentationScan.GroupStats]] = (0..<40).map { index in
            (0..<Int(random.next() % 6)).map { _ in
                var stats = PresentationScan.GroupStats()
                stats.viewers = (0..<Int(random.next() % 400)).map { _ in
                    UInt32(random.next() % UInt64(50 + index * 30))
                }
                stats.openS = (0..<Int(random.next() % 400)).map { _ in Double(random.next() % 2_000) / 8 }
                stats.normalize()
                return stats
            }
        }
        var beyond = PresentationScan.GroupStats()
        beyond.viewers = [3, 65_536, 70_000]
        beyond.openS = [1.5]
        groups.append([beyond, beyond])
        // When each group's lists are kept as runs and read with one reused counter and buffer
        var counter = DistinctCounter(capacity: 1_000)
        var scratch: [Double] = []
        for group in groups + groups.reversed() {
            var runs = ListRuns()
            for stats in group { runs.add(stats) }
            let joined = group.flatMap(\.openS).sorted()
            let opens = runs.openPercentiles(&scratch)
            // Then the distinct count is the joined viewers' set size and the percentiles are the
            // nearest ranks of the joined values sorted (null when there are none)
            #expect(runs.distinctViewers(&counter) == Int64(Set(group.flatMap(\.viewers)).count))
            #expect(opens.p50 == PresentationScan.percentile(joined, 50))
            #expect(opens.p90 == PresentationScan.percentile(joined, 90))
        }
    }
}
