import Dispatch
import PaywallLock

/// A hand-over of at most `capacity` items from one producing thread to one consuming thread:
/// the producer waits for room, the consumer for an item; either side can stop the other.
final class BoundedChannel<Item: Sendable>: Sendable {
    private struct State: ~Copyable {
        var queue: [Item] = []
        var finished = false
        var cancelled = false
    }

    private let state = Lock(State())
    private let items = DispatchSemaphore(value: 0)
    private let spaces: DispatchSemaphore

    /// A channel holding up to `capacity` items at a time.
    init(capacity: Int) {
        spaces = DispatchSemaphore(value: capacity)
    }

    /// Waits for room, then queues `item`; `false` once the receiver has cancelled.
    func send(_ item: Item) -> Bool {
        spaces.wait()
        let queued = state.withLock { state in
            guard !state.cancelled else { return false }
            state.queue.append(item)
            return true
        }
        if queued { items.signal() } else { spaces.signal() }
        return queued
    }

    /// No more items will come.
    func finish() {
        state.withLock { $0.finished = true }
        items.signal()
    }

    /// The next item, or `nil` when the sender has finished.
    func receive() -> Item? {
        items.wait()
        let item = state.withLock { state in state.queue.isEmpty ? nil : state.queue.removeFirst() }
        if item != nil { spaces.signal() } else { items.signal() }   // a later receive also sees the end
        return item
    }

    /// Tells the sender to stop (it may be waiting for room).
    func cancel() {
        state.withLock { $0.cancelled = true }
        spaces.signal()
    }
}
