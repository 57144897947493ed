import CSystemMemory

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Integer keys by byte string (customer and placement names), looked up straight from a row's
/// bytes: no `String`, no SipHash per lookup. Open addressing over 8-byte slots (a 32-bit hash
/// and the key): 300k customers take 4 MB of slots, so loading and probing miss the cache less.
/// The names lie back to back in one arena, found by key (``places``: start and length together).
///
/// Speed (design note): a first build looks every presentation's customer up among some 231k
/// names (1M events), and the fold's texts up per event, so each lookup's cache misses and its
/// hash are most of its cost. In a profile of the full recompute at 1M events the customer lookups
/// took about 0.2 s of CPU: the slot, then the key's length and its start (two arrays, two misses),
/// then the name, and FNV-1a byte by byte about a third of it. The start and length now sit side by
/// side (one miss), and the hash reads eight bytes at a time. Putting them in the slot (16-byte
/// slots) saved one miss more but doubled the slots' memory (8 MB for 300k customers, in a nightly
/// whose peak is kept under 200 MB at 10M events).
struct ByteKeyTable {
    private struct Slot {
        var hash: UInt32 = 0
        var key: UInt32 = .max  // .max: empty
    }

    /// Where a key's name lies in the arena (length -1: no such key).
    fileprivate struct Place {
        var start: UInt32 = 0
        var length: Int32 = -1
    }

    private var arena: [UInt8] = []
    /// Key `k`'s name is `arena[places[k].start ..< places[k].start + places[k].length]`.
    private var places: [Place] = []
    private var slots = [Slot](repeating: Slot(), count: 64)
    private(set) var count = 0

    /// Sizes the table for `count` names, so loading them does not grow it step by step.
    mutating func reserve(_ count: Int) {
        var size = slots.count
        while count * 4 > size * 3 { size *= 2 }
        places.reserveCapacity(count + 1)
        guard size > slots.count else { return }
        let old = slots
        slots = [Slot](repeating: Slot(), count: size)
        for slot in old where slot.key != .max { place(slot) }
    }

    /// The key stored for `bytes`, if any.
    func key(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        key(bytes, hash: Self.hash(bytes))
    }

    /// The key stored for `bytes`, whose ``hash(_:)`` is `hash`, if any.
    func key(_ bytes: UnsafeRawBufferPointer, hash: UInt32) -> Int64? {
        let mask = slots.count - 1
        var index = Int(hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let slot = slots[index]
                if slot.key == .max { return nil }
                if slot.hash == hash, equal(Int(slot.key), bytes) { return Int64(slot.key) }
                index = (index + 1) & mask
            }
        }
    }

    /// Starts loading the first slot a lookup of a name hashed `hash` reads (a hint, see
    /// ``ReportKeys/resolveCustomers(of:names:)``).
    func prefetchSlot(_ hash: UInt32) {
        slots.withUnsafeBufferPointer { system_memory_prefetch($0.baseAddress! + (Int(hash) & ($0.count - 1))) }
    }

    /// Starts loading where the name of the first key whose slot hash is `hash` is placed (read
    /// from its slot, which ``prefetchSlot(_:)`` loaded a few lookups before).
    func prefetchPlace(_ hash: UInt32) {
        guard let key = firstCandidate(hash) else { return }
        places.withUnsafeBufferPointer { system_memory_prefetch($0.baseAddress! + key) }
    }

    /// Starts loading the first bytes of that key's name (its place loaded by ``prefetchPlace(_:)``).
    func prefetchName(_ hash: UInt32) {
        guard let key = firstCandidate(hash) else { return }
        let start = Int(places[key].start)
        arena.withUnsafeBytes { arena in
            if let base = arena.baseAddress { system_memory_prefetch(base + start) }  // none: only empty names
        }
    }

    /// The key in the first slot of the probe sequence of `hash` that holds that hash, if any
    /// before an empty slot: the key a lookup of a name with that hash most likely finds.
    private func firstCandidate(_ hash: UInt32) -> Int? {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = Int(hash) & mask
            while true {
                let slot = slots[index]
                if slot.key == .max { return nil }
                if slot.hash == hash { return Int(slot.key) }
                index = (index + 1) & mask
            }
        }
    }

    /// The names by key, where the table keeps them: valid only inside the ``withArena(_:)`` call
    /// that hands it out.
    struct Names {
        fileprivate let arena: UnsafeRawBufferPointer
        fileprivate let places: UnsafeBufferPointer<Place>

        /// The bytes of key `key`'s name (the key must be present).
        subscript(key: Int) -> UnsafeRawBufferPointer {
            let place = places[key]
            return UnsafeRawBufferPointer(rebasing: arena[Int(place.start)..<Int(place.start) + Int(place.length)])
        }
    }

    /// Calls `body` with every name by key, for binding many names without copying them.
    func withArena<R>(_ body: (Names) throws -> R) rethrows -> R {
        try arena.withUnsafeBytes { arena in
            try places.withUnsafeBufferPointer { try body(Names(arena: arena, places: $0)) }
        }
    }

    /// Stores `key` (0 ..< 2³² − 1) for `bytes` (which must not be present yet).
    mutating func insert(_ bytes: UnsafeRawBufferPointer, key: Int64) {
        insert(bytes, hash: Self.hash(bytes), key: key)
    }

    /// Stores `key` for `bytes`, whose ``hash(_:)`` is `hash` (which must not be present yet).
    mutating func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt32, key: Int64) {
        precondition(key >= 0 && key < Int64(UInt32.max), "ByteKeyTable keys are dense integers below 2^32 - 1")
        precondition(arena.count + bytes.count < Int(UInt32.max), "ByteKeyTable holds under 4 GiB of names")
        if (count + 1) * 4 > slots.count * 3 { reserve(count * 2 + 1) }
        let index = Int(key)
        if places.count <= index { places.append(contentsOf: repeatElement(Place(), count: index + 1 - places.count)) }
        places[index] = Place(start: UInt32(arena.count), length: Int32(bytes.count))
        arena.append(contentsOf: bytes)
        place(Slot(hash: hash, key: UInt32(key)))
        count += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Int(slot.hash) & mask
        while slots[index].key != .max { index = (index + 1) & mask }
        slots[index] = slot
    }

    private func equal(_ key: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let place = places[key]
        guard Int(place.length) == bytes.count else { return false }
        return bytes.count == 0
            || arena.withUnsafeBytes {
                memcmp($0.baseAddress! + Int(place.start), bytes.baseAddress!, bytes.count) == 0
            }
    }

    /// Eight bytes at a time (a multiply and a fold of the high half per word, the last 1–7 bytes
    /// as one word with the length), then a final mix so the low bits (the slot index) depend on
    /// every byte. Only this process's tables use it: it is never stored.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let count = bytes.count
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(truncatingIfNeeded: count)
        var offset = 0
        while offset + 8 <= count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9e37_79b9_7f4a_7c15
            hash ^= hash >> 32
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                tail |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            hash = (hash ^ tail) &* 0x9e37_79b9_7f4a_7c15
            hash ^= hash >> 32
        }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }
}
