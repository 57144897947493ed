import Foundation
import PaywallCore
import PaywallSQLite

/// How a transaction's rows reach the `events` table. Every path stores the same rows with the same
/// rowids (assigned in batch order); they differ only in the order the id index is read and written.
public enum WritePath: Sendable, Hashable, CaseIterable {
    /// ``plain`` while the id index fits in the import's page cache (see ``ImportCache``), ``sorted``
    /// once it outgrows it (for a writer without sizes: ``sorted``). Measured, not the default: at
    /// 10M random ids it was slower than ``plain`` (IMPORT-FAST-PATH.md).
    case automatic
    /// One `INSERT … ON CONFLICT DO NOTHING` per event, in batch order (the reference path).
    case plain
    /// Batches not already in id order are probed for stored ids in id order, then their new rows
    /// are inserted in id order with rowids given explicitly in batch order.
    case sorted
    /// Probed in id order like ``sorted``, but inserted in batch order (measured, not the default).
    case sortedProbe
    /// Like ``sorted``, but the stored ids are probed in one statement for the whole transaction
    /// (`json_each` of the sorted ids joined to the index; measured, not the default).
    case sortedBatchProbe
}

extension EventWriter {
    /// The ids of `events` as sortable integers (big-endian bytes: the order of their canonical
    /// text), or `nil` when the batch is already in non-decreasing id order (the plain path then
    /// writes the index in order anyway).
    static func keysIfUnordered<Events: Collection<EventRecord>>(_ events: Events) -> [IDSortKey]? {
        var keys: [IDSortKey] = []
        var previous = IDSortKey(high: 0, low: 0)
        var position = 0
        var ordered = true
        for event in events {
            let key = sortKey(event.id)
            if ordered {
                if key >= previous {
                    previous = key
                    position += 1
                    continue
                }
                // The first key out of order: collect the keys before it, then every key.
                ordered = false
                keys.reserveCapacity(events.count)
                for earlier in events.prefix(position) { keys.append(sortKey(earlier.id)) }
            }
            keys.append(key)
        }
        return ordered ? nil : keys
    }

    /// `uuid`'s 16 bytes as a big-endian integer pair.
    static func sortKey(_ uuid: UUID) -> IDSortKey {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            IDSortKey(
                high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The sorted path: probe the stored ids in id order (one index descent each, in key order, so
    /// the index pages are read once per transaction), decide each event's fate, give the new rows
    /// rowids in batch order, then insert them in id order (``WritePath/sorted``) or batch order.
    func insertSorted(
        _ events: [EventRecord], keys: [IDSortKey], recordedAt: Int64, forwarded: Bool,
        byDevice: Bool = false, provenance: EventProvenance, floor: Int64? = nil
    ) throws -> InsertOutcome {
        let count = events.count
        var order = Array(0..<count)
        order.sort { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
        var isNew = [Bool](repeating: false, count: count)
        var differing: [Int: [String]] = [:]
        let stored = path == .sortedBatchProbe ? try storedRows(events, order: order, keys: keys) : nil
        let probe = try db.cachedStatement(Self.probeSQL)
        var start = 0
        while start < count {
            var end = start + 1
            while end < count, keys[order[end]] == keys[order[start]] { end += 1 }
            let first = order[start]
            var storedFields: [Int: [String]]?
            if let stored {
                storedFields = stored[first]
            } else {
                UUIDText.withCanonical(events[first].id) { probe.bindText($0, at: 1) }
                if try probe.step() {
                    let row = probe.row
                    var fields: [Int: [String]] = [:]
                    for position in start..<end {
                        fields[order[position]] = EventDifference.differences(stored: row, events[order[position]])
                    }
                    storedFields = fields
                }
                probe.reset()
            }
            if let storedFields {
                for (index, fields) in storedFields where !fields.isEmpty { differing[index] = fields }
            } else {
                isNew[first] = true
                for position in (start + 1)..<end {
                    let fields = EventDifference.differences(events[first], events[order[position]])
                    if !fields.isEmpty { differing[order[position]] = fields }
                }
            }
            start = end
        }
        var seq = [Int64](repeating: 0, count: count)
        var next = max(try db.int64(Self.lastSeqSQL) ?? 0, floor ?? 0) + 1
        var outcome = InsertOutcome()
        for index in 0..<count where isNew[index] {
            seq[index] = next
            next += 1
            outcome.inserted += 1
        }
        let insertEvent = try db.cachedStatement(Self.insertEventWithSeqSQL)
        for index in path == .sortedProbe ? Array(0..<count) : order where isNew[index] {
            bind(events[index], recordedAt: recordedAt, to: insertEvent)
            insertEvent.bind(seq[index], at: 16)
            try insertEvent.run()
        }
        for index in 0..<count where isNew[index] {
            try afterInsert(
                events[index], index: index, rowid: seq[index], recordedAt: recordedAt,
                forwarded: forwarded, byDevice: byDevice)
        }
        outcome.duplicates = count - outcome.inserted - differing.count
        if importedDeliveries != nil {
            outcome.duplicateIndexes = (0..<count).filter { !isNew[$0] && differing[$0] == nil }
        }
        let conflicts = differing.keys.sorted().map { (index: $0, event: events[$0], fields: differing[$0]!) }
        conflictEntries(conflicts, at: recordedAt, provenance: provenance, into: &outcome)
        return outcome
    }

    static let batchProbeSQL = """
        SELECT e.seq, e.name, e.occurred_at, e.user_id, e.session_id, e.catalog_version, e.pw_id, e.source, e.offering_id,
               e.placement_id, e.product, e.result, e.via, e.open_s, e.id
        FROM json_each(?1) AS j JOIN events AS e ON e.id = j.value
        """

    /// ``WritePath/sortedBatchProbe``: the stored versions of the batch's ids, read in one statement,
    /// as each group's differences keyed by the first position of the group (absent: not stored).
    func storedRows(_ events: [EventRecord], order: [Int], keys: [IDSortKey]) throws -> [Int: [Int: [String]]] {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(order.count * 39 + 2)
        var groups: [(first: Int, members: ArraySlice<Int>)] = []
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count, keys[order[end]] == keys[order[start]] { end += 1 }
            if !groups.isEmpty { json.append(UInt8(ascii: ",")) }
            json.append(UInt8(ascii: "\""))
            UUIDText.withCanonical(events[order[start]].id) { json.append(contentsOf: $0) }
            json.append(UInt8(ascii: "\""))
            groups.append((order[start], order[start..<end]))
            start = end
        }
        json.append(UInt8(ascii: "]"))
        let statement = try db.cachedStatement(Self.batchProbeSQL)
        statement.bind(String(decoding: json, as: UTF8.self), at: 1)
        var found: [Int: [Int: [String]]] = [:]
        var group = 0
        try statement.forEachRow { row in
            guard let text = row.string(at: 14), let id = UUID(uuidString: text) else { return true }
            let key = Self.sortKey(id)
            while group < groups.count, keys[groups[group].first] < key { group += 1 }
            guard group < groups.count, keys[groups[group].first] == key else { return true }
            var fields: [Int: [String]] = [:]
            for index in groups[group].members {
                fields[index] = EventDifference.differences(stored: row, events[index])
            }
            found[groups[group].first] = fields
            return true
        }
        return found
    }
}

/// An id's 16 bytes as two big-endian halves, compared in the order of the canonical text (a
/// `UInt128` would need iOS 18 / macOS 15, above the package's floors).
struct IDSortKey: Comparable, Hashable, Sendable {
    /// Bytes 0–7, big-endian.
    var high: UInt64
    /// Bytes 8–15, big-endian.
    var low: UInt64

    static func < (lhs: IDSortKey, rhs: IDSortKey) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }
}
