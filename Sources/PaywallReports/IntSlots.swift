/// A map from non-negative integer keys to dense slot numbers 0, 1, 2, … in order of first sight:
/// open addressing with a multiplicative hash, for a lookup per presentation where `Dictionary`
/// would hash every key with SipHash (a day's rescan finds each presentation's segment here).
struct IntSlots {
    private var keys = [Int](repeating: -1, count: 64)  // -1: empty
    private var slots = [Int32](repeating: 0, count: 64)
    private var shift = 58  // 64 − log2(capacity)
    private(set) var count = 0

    /// The slot of `key` (≥ 0), and whether it was new (then it is ``count`` − 1).
    mutating func slot(_ key: Int) -> (slot: Int, isNew: Bool) {
        precondition(key >= 0, "IntSlots keys are non-negative")
        if let found = find(key) { return (found, false) }
        if (count + 1) * 2 > keys.count { grow() }
        place(key, Int32(count))
        count += 1
        return (count - 1, true)
    }

    private func find(_ key: Int) -> Int? {
        let mask = keys.count - 1
        var index = Self.home(key, shift)
        while true {
            let stored = keys[index]
            if stored == key { return Int(slots[index]) }
            if stored < 0 { return nil }
            index = (index + 1) & mask
        }
    }

    private mutating func place(_ key: Int, _ slot: Int32) {
        let mask = keys.count - 1
        var index = Self.home(key, shift)
        while keys[index] >= 0 { index = (index + 1) & mask }
        keys[index] = key
        slots[index] = slot
    }

    private mutating func grow() {
        let (oldKeys, oldSlots) = (keys, slots)
        keys = [Int](repeating: -1, count: oldKeys.count * 2)
        slots = [Int32](repeating: 0, count: oldKeys.count * 2)
        shift -= 1
        for (key, slot) in zip(oldKeys, oldSlots) where key >= 0 { place(key, slot) }
    }

    /// Fibonacci hashing: the top bits of the key times 2⁶⁴/φ.
    private static func home(_ key: Int, _ shift: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }
}
