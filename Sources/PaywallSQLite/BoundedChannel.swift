import Dispatch
import PaywallLock

/// The package's one bounded channel: a hand-over of at most `capacity` items from one producing
/// thread to one consuming thread. The producer waits for room, the consumer for an item; either
/// side can stop the other (``finish()`` from the producer, ``cancel()`` from the consumer).
///
/// ```swift
/// let channel = BoundedChannel<Int>(capacity: 2)
/// // producer thread:
/// for value in 0..<10 where !channel.send(value) { break }   // false: the consumer cancelled
/// channel.finish()
/// // consumer thread:
/// while let value = channel.receive() { print(value) }
/// ```
public final class BoundedChannel<Item: Sendable>: Sendable {
    private struct State {
        var queue: [Item] = []
        var finished = false
        var cancelled = false
    }

    private let state = Lock(State())
    private let items = DispatchSemaphore(value: 0)
    private let spaces: DispatchSemaphore

    /// A channel holding up to `capacity` (at least 1) items at a time.
    public init(capacity: Int) {
        // libdispatch traps when a semaphore is freed with a value below the one it was created
        // with, which a channel dropped with items still queued (a consumer that stopped early)
        // would be. So the semaphore starts at 0 and is signalled up to the capacity.
        spaces = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, capacity) { spaces.signal() }
    }

    /// Waits for room, then queues `item`; `false` (dropping it) once the receiver has cancelled.
    public func send(_ item: Item) -> Bool {
        spaces.wait()
        let queued = state.withLock { state in
            guard !state.cancelled else { return false }
            state.queue.append(item)
            return true
        }
        if queued { items.signal() } else { spaces.signal() }
        return queued
    }

    /// No more items will come: the receiver gets `nil` once it has taken the queued ones.
    public func finish() {
        state.withLock { $0.finished = true }
        items.signal()
    }

    /// The next item, waiting for one; `nil` when the sender has finished and nothing is queued.
    public func receive() -> Item? {
        items.wait()
        let item = state.withLock { state in state.queue.isEmpty ? nil : state.queue.removeFirst() }
        if item != nil { spaces.signal() } else { items.signal() }  // a later receive also sees the end
        return item
    }

    /// Tells the sender to stop (it may be waiting for room): its later sends return `false`.
    public func cancel() {
        state.withLock { $0.cancelled = true }
        spaces.signal()
    }
}
