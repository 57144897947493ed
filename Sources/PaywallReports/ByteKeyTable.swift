#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Integer keys by byte string (customer and placement names), looked up straight from a row's
/// bytes: no `String`, no SipHash per lookup. Open addressing over one byte arena.
struct ByteKeyTable {
    private struct Slot {
        var hash: UInt64 = 0
        var start: Int = 0
        var length: Int = 0
        var key: Int64 = -1   // -1: empty
    }

    private var arena: [UInt8] = []
    private var slots = [Slot](repeating: Slot(), count: 64)
    private(set) var count = 0

    /// Sizes the table for `count` names, so loading them does not grow it step by step.
    mutating func reserve(_ count: Int) {
        var size = slots.count
        while count * 4 > size * 3 { size *= 2 }
        guard size > slots.count else { return }
        let old = slots
        slots = [Slot](repeating: Slot(), count: size)
        for slot in old where slot.key >= 0 { place(slot) }
    }

    /// The key stored for `bytes`, if any.
    func key(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let hash = Self.hash(bytes)
        var index = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let slot = slots[index]
                if slot.key < 0 { return nil }
                if slot.hash == hash, slot.length == bytes.count, equal(slot, bytes) { return slot.key }
                index = (index + 1) & (slots.count - 1)
            }
        }
    }

    /// Stores `key` for `bytes` (which must not be present yet).
    mutating func insert(_ bytes: UnsafeRawBufferPointer, key: Int64) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let start = arena.count
        arena.append(contentsOf: bytes)
        place(Slot(hash: Self.hash(bytes), start: start, length: bytes.count, key: key))
        count += 1
    }

    private mutating func place(_ slot: Slot) {
        var index = Int(truncatingIfNeeded: slot.hash) & (slots.count - 1)
        while slots[index].key >= 0 { index = (index + 1) & (slots.count - 1) }
        slots[index] = slot
    }

    private mutating func grow() { reserve(count * 2 + 1) }

    private func equal(_ slot: Slot, _ bytes: UnsafeRawBufferPointer) -> Bool {
        arena.withUnsafeBytes { arena in
            bytes.count == 0 || memcmpEqual(arena.baseAddress! + slot.start, bytes.baseAddress!, bytes.count)
        }
    }

    /// FNV-1a, then a final mix so the low bits (the slot index) depend on every byte.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash ^= hash >> 29
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        return hash ^ hash >> 32
    }
}

private func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    memcmp(a, b, count) == 0
}
