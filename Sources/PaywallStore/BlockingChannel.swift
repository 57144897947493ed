import Foundation

/// A bounded first-in-first-out hand-off between two threads: `send` blocks while full, `receive`
/// blocks while empty; `close()` wakes both sides and makes later sends fail.
// @unchecked Sendable: `condition` guards `items` and `closed`; nothing else is mutable.
final class BlockingChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Appends `item`, waiting for room; returns `false` (dropping it) when the channel is closed.
    func send(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The oldest item, waiting for one; `nil` once the channel is closed and empty.
    func receive() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Stops the channel: waiting senders and receivers return.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
