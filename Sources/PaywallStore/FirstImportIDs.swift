import Foundation
import PaywallCore
import PaywallSQLite

/// The ids a first import stored while the unique index on `events.id` is left out, each with its
/// rowid: ``EventWriter`` finds a repeated id here (and reads the stored row by rowid) instead of
/// through the index.
///
/// Speed (design note): inserting random UUIDv4 ids into the unique index puts each on a random leaf
/// of it; an index created once the rows are in is built by sorting. Measured on the key alone as the
/// import writes (`paywall-bench import --key-experiment`, 1M keys): 1.63–1.76× the rows/s, the
/// index's creation included; ids in order (time-ordered UUIDv7) append to the index cheaply, and
/// there building it afterwards costs more (``inOrder(_:)``). Only a store holding no event can leave
/// the index out (every id it will hold then passes through this table), and only inside one
/// transaction: no other writer and no reader ever sees the table without its index, and a killed
/// import rolls back to the empty store with its index. The table holds at most
/// ``ImportOptions/firstImportEventsBeforeIndex`` ids (and one batch).
///
/// Memory (design note): a slot is 8 bytes, a 32-bit hash of the id and the rowid's distance
/// from the transaction's first rowid, not the id's 16 bytes and the rowid (24 bytes): 16 MB of slots
/// for 1,000,000 ids instead of 48 MB. Every slot page is fresh memory the process faults in (about
/// 16 µs a page on the 2-core virtual machine the benchmarks run on), and a lookup reads one cache line
/// instead of up to two. Another id can have the same hash: the caller confirms each candidate
/// against the stored row's id (``rowid(of:isStored:)``), one lookup by rowid for a repeated id.
final class FirstImportIDs {
    /// An id's 32-bit hash (its first slot is the hash's low bits, so the table can grow without
    /// the ids) and its rowid as `rowid - base + 1`; offset 0 marks an empty slot.
    private struct Slot {
        var hash: UInt32 = 0
        var offset: UInt32 = 0
    }

    /// Open addressing, at most half full: a lookup hashes the id's 16 bytes with two multiplies
    /// (no per-lookup seeded hasher, which a `Dictionary<UUID, Int64>` spent 6 % of the import on).
    private var slots: [Slot]
    private var count = 0
    /// The first rowid recorded (rowids in one import only grow).
    private var base: Int64?
    /// The ids' hash (tests pass a weak one, to make every id's hash collide).
    private let hash: (_ high: UInt64, _ low: UInt64) -> UInt32

    /// An empty table for `capacity` ids; `hash` replaces the ids' hash (tests only).
    init(capacity: Int, hash: ((_ high: UInt64, _ low: UInt64) -> UInt32)? = nil) {
        var size = 1_024
        while size < capacity * 2 { size *= 2 }
        slots = [Slot](repeating: Slot(), count: size)
        self.hash =
            hash ?? { high, low in
                UInt32(truncatingIfNeeded: (((high &* 0x9e37_79b9_7f4a_7c15) ^ low) &* 0xbf58_476d_1ce4_e5b9) >> 32)
            }
    }

    /// Leaves out the id index of the store `db` writes in, when the store holds no event, the index
    /// is a named one (``Schema/eventsIDIndexName``) and the ids of `sample` (the input's first
    /// batch) are not in order; `nil` otherwise. Call inside the transaction that will write the
    /// events and then ``buildIndex(_:)``.
    static func leaveIndexOut(_ db: Database, expecting count: Int, sample: [EventRecord]) throws -> FirstImportIDs? {
        guard !inOrder(sample), try db.scalar("SELECT EXISTS (SELECT 1 FROM events)")?.int64 == 0,
            try db.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                [.text(Schema.eventsIDIndexName)])?.int64 == 1
        else { return nil }
        try db.execute(Schema.dropEventsIDIndex)
        return FirstImportIDs(capacity: count)
    }

    /// Whether at least three in four of the ids' neighbouring pairs are in increasing order (as
    /// time-ordered UUIDv7 ids are; random ids: about one in two), or there are fewer than two ids.
    /// Ids in order append to the index at its end, which costs less than building it afterwards
    /// (measured: 1M time-ordered events 449k events/s with the index kept, 353k with it built after).
    static func inOrder(_ events: [EventRecord]) -> Bool {
        guard events.count > 1 else { return true }
        var increasing = 0
        var previous = halves(events[0].id)
        for event in events.dropFirst() {
            let next = halves(event.id)
            let (a, b) = ((previous.high.bigEndian, previous.low.bigEndian), (next.high.bigEndian, next.low.bigEndian))
            if a < b { increasing += 1 }
            previous = next
        }
        return increasing * 4 >= (events.count - 1) * 3
    }

    private static func halves(_ id: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: id.uuid) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// The rowid of the stored event with `id`, if this import stored one: each rowid whose slot
    /// holds `id`'s hash is offered to `isStored`, which says whether that row's id is `id`.
    func rowid(of id: UUID, isStored: (_ rowid: Int64) throws -> Bool) rethrows -> Int64? {
        guard !slots.isEmpty, let base else { return nil }  // after buildIndex(_:), or nothing recorded
        let (high, low) = Self.halves(id)
        let wanted = hash(high, low)
        let mask = slots.count - 1
        var index = Int(wanted) & mask
        while true {
            let slot = slots[index]
            if slot.offset == 0 { return nil }
            if slot.hash == wanted {
                let rowid = base + Int64(slot.offset) - 1
                if try isStored(rowid) { return rowid }
            }
            index = (index + 1) & mask
        }
    }

    /// Records that the event with `id` (not recorded yet) was stored at `rowid` (at least 1, and at
    /// least every rowid recorded before).
    func insert(_ id: UUID, rowid: Int64) {
        precondition(rowid > 0, "events rowids start at 1")
        let base = self.base ?? rowid
        self.base = base
        precondition(rowid >= base && rowid - base < Int64(UInt32.max) - 1, "a first import's rowids only grow")
        if (count + 1) * 2 > slots.count {
            let old = slots
            slots = [Slot](repeating: Slot(), count: old.count * 2)
            for slot in old where slot.offset != 0 { place(slot) }
        }
        let (high, low) = Self.halves(id)
        place(Slot(hash: hash(high, low), offset: UInt32(rowid - base + 1)))
        count += 1
    }

    private func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Int(slot.hash) & mask
        while slots[index].offset != 0 { index = (index + 1) & mask }
        slots[index] = slot
    }

    /// Lets go of the ids and builds the unique index on `events.id` again (in the same transaction).
    func buildIndex(_ db: Database) throws {
        slots = []
        try db.execute(Schema.createEventsIDIndex)
    }
}
