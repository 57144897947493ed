import Foundation
import PaywallCore
import PaywallSimulation
import PaywallStore

/// Input for the write-path tests: NDJSON lines with exact repeats, repeats with lower-case ids,
/// conflicts near and far, two new versions of one id, and bad lines; and a model of what an
/// import must make of them (first version of an id stored, identical repeats duplicates, other
/// content conflicts, bad lines quarantined).
enum ImportFastPathFixture {
    /// One line and, when it is a valid event, the event it holds.
    struct Entry {
        var text: String
        var event: EventRecord?
    }

    static func entries(count: Int, ids: ImportFastPathTests.IDs, using generator: inout SeededGenerator) -> [Entry] {
        var entries: [Entry] = []
        var earlier: [EventRecord] = []
        var time: Int64 = 1_764_400_000_000
        func add(_ event: EventRecord, text: String? = nil) {
            entries.append(Entry(text: text ?? NDJSONLine.encode(event), event: event))
            earlier.append(event)
        }
        func changed(_ event: EventRecord, _ index: Int) -> EventRecord {
            var other = event
            if index % 2 == 0 { other.properties.source = "elsewhere" } else { other.userID = "someone-else" }
            return other
        }
        for index in 0..<count {
            time += Int64.random(in: 1...50, using: &generator)
            let random = ids == .random || (ids == .mixed && index % 5 == 0)
            let id = random ? randomUUID(&generator) : UUIDv7.make(milliseconds: time, using: &generator)
            let names: [EventName] = [.paywallShown, .paywallPlanSelected, .paywallPurchaseStarted, .paywallClosed]
            var event = Fixtures.event(index, name: names[index % 4], user: "user-\(index % 17)")
            event.id = id
            event.occurredAt = time
            add(event)
            if index % 37 == 36 { add(earlier[earlier.count - 4]) }
            if index % 101 == 100, earlier.count > 700 { add(earlier[earlier.count - 700]) }
            if index % 53 == 52 {
                let repeated = earlier[earlier.count - 6]
                add(
                    repeated,
                    text: NDJSONLine.encode(repeated).replacingOccurrences(
                        of: repeated.id.uuidString, with: repeated.id.uuidString.lowercased()))
            }
            if index % 89 == 88 { add(changed(earlier[earlier.count - 11], index)) }
            if index % 97 == 96, earlier.count > 900 { add(changed(earlier[earlier.count - 900], index)) }
            if index % 151 == 150 { add(changed(event, index + 1)) }
            if index % 61 == 60 { entries.append(Entry(text: "not json \(index)", event: nil)) }
        }
        return entries
    }

    static func randomUUID(_ generator: inout SeededGenerator) -> UUID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// What importing `files` in turn into an empty store must give: the stored ids in rowid order,
    /// and the counts (``ImportResult/alreadyQuarantined`` aside).
    static func model(_ files: [[Entry]]) -> (ids: [String], result: ImportResult, quarantineRows: Int) {
        var stored: [UUID: EventRecord] = [:]
        var payloads = Set<String>()
        var order: [String] = []
        var result = ImportResult()
        for file in files {
            for entry in file {
                guard let event = entry.event else {
                    payloads.insert(entry.text)
                    result.quarantined += 1
                    continue
                }
                if let first = stored[event.id] {
                    var same = first
                    same.recordedAt = event.recordedAt
                    if same == event {
                        result.duplicates += 1
                    } else {
                        result.conflicts += 1
                        payloads.insert(NDJSONLine.encode(event))
                    }
                } else {
                    stored[event.id] = event
                    order.append(event.id.uuidString)
                    result.imported += 1
                }
            }
        }
        return (order, result, payloads.count)
    }
}
