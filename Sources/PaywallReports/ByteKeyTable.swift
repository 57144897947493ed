#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Integer keys by byte string (customer and placement names), looked up straight from a row's
/// bytes: no `String`, no SipHash per lookup. Open addressing over 8-byte slots (a 32-bit hash
/// and the key): 300k customers take 4 MB of slots, so loading and probing miss the cache less.
/// The names lie back to back in one arena, found by key.
struct ByteKeyTable {
    private struct Slot {
        var hash: UInt32 = 0
        var key: UInt32 = .max  // .max: empty
    }

    private var arena: [UInt8] = []
    /// Key `k`'s name is `arena[starts[k] ..< starts[k] + lengths[k]]` (length -1: no such key).
    private var starts: [Int] = []
    private var lengths: [Int32] = []
    private var slots = [Slot](repeating: Slot(), count: 64)
    private(set) var count = 0

    /// Sizes the table for `count` names, so loading them does not grow it step by step.
    mutating func reserve(_ count: Int) {
        var size = slots.count
        while count * 4 > size * 3 { size *= 2 }
        starts.reserveCapacity(count + 1)
        lengths.reserveCapacity(count + 1)
        guard size > slots.count else { return }
        let old = slots
        slots = [Slot](repeating: Slot(), count: size)
        for slot in old where slot.key != .max { place(slot) }
    }

    /// The key stored for `bytes`, if any.
    func key(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let hash = Self.hash(bytes)
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

    /// Stores `key` (0 ..< 2³² − 1) for `bytes` (which must not be present yet).
    mutating func insert(_ bytes: UnsafeRawBufferPointer, key: Int64) {
        precondition(key >= 0 && key < Int64(UInt32.max), "ByteKeyTable keys are dense integers below 2^32 - 1")
        if (count + 1) * 4 > slots.count * 3 { reserve(count * 2 + 1) }
        let index = Int(key)
        if starts.count <= index {
            starts.append(contentsOf: repeatElement(0, count: index + 1 - starts.count))
            lengths.append(contentsOf: repeatElement(-1, count: index + 1 - lengths.count))
        }
        starts[index] = arena.count
        lengths[index] = Int32(bytes.count)
        arena.append(contentsOf: bytes)
        place(Slot(hash: Self.hash(bytes), key: UInt32(key)))
        count += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Int(slot.hash) & mask
        while slots[index].key != .max { index = (index + 1) & mask }
        slots[index] = slot
    }

    private func equal(_ key: Int, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard Int(lengths[key]) == bytes.count else { return false }
        return bytes.count == 0
            || arena.withUnsafeBytes { memcmp($0.baseAddress! + starts[key], bytes.baseAddress!, bytes.count) == 0 }
    }

    /// FNV-1a, then a final mix so the low bits (the slot index) depend on every byte.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }
}
