/// Positions by ``UUIDKey`` for one chunk's folds: open addressing with Fibonacci hashing (cheaper
/// than `Dictionary`'s seeded SipHash, and UUIDs are already well spread).
struct UUIDSlots {
    private var keys: [UUIDKey]
    private var positions: [Int32]  // -1: empty
    private var shift: UInt64
    private var count = 0

    init(capacity: Int) {
        var size = 64
        while size < capacity * 2 { size *= 2 }
        keys = [UUIDKey](repeating: .zero, count: size)
        positions = [Int32](repeating: -1, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    /// The position stored for `key`, or stores `position` for it and returns `nil`.
    mutating func position(of key: UUIDKey, orInsert position: Int) -> Int? {
        if (count + 1) * 2 > keys.count { grow() }
        var index = slot(key)
        while positions[index] >= 0 {
            if keys[index] == key { return Int(positions[index]) }
            index = (index + 1) & (keys.count - 1)
        }
        keys[index] = key
        positions[index] = Int32(position)
        count += 1
        return nil
    }

    private func slot(_ key: UUIDKey) -> Int {
        Int(truncatingIfNeeded: (((key.high &* 31) ^ key.low) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldPositions = positions
        keys = [UUIDKey](repeating: .zero, count: oldKeys.count * 2)
        positions = [Int32](repeating: -1, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for (key, position) in zip(oldKeys, oldPositions) where position >= 0 {
            _ = self.position(of: key, orInsert: Int(position))
        }
    }
}
