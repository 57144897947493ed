import Foundation
import PaywallCore
import PaywallLock

/// An ``EventOutbox`` in memory, with the same semantics as the SQLite one, for fast tests
/// and the forwarder benchmark. Thread-safe.
public final class InMemoryOutbox: EventOutbox {
    /// Delivery state of one impression (the SQLite store keeps pending ones in `outbox`, delivered
    /// ones in `deliveries`, dead ones as an open record in `dead_letters`).
    public enum State: String, Sendable, Equatable {
        /// Waiting for delivery.
        case pending
        /// Accepted by RevenueCat.
        case delivered
        /// Refused by RevenueCat; see ``deadLetters``.
        case dead
    }

    /// One impression and its delivery state.
    public struct Entry: Sendable, Equatable {
        /// The impression.
        public var event: EventRecord
        /// Its state.
        public var state: State
        /// Attempts made so far.
        public var attempts: Int
        /// Earliest next attempt, Unix ms.
        public var nextAttemptAt: Int64
        /// When it was delivered.
        public var deliveredAt: Int64?
    }

    /// One row of the dead-letter history.
    public struct DeadLetter: Sendable, Equatable {
        /// The refused impression.
        public var eventID: UUID
        /// The HTTP status.
        public var status: Int
        /// The response excerpt.
        public var reason: String
        /// When it was refused.
        public var deadAt: Int64
        /// When the operator requeued it.
        public var requeuedAt: Int64?
    }

    private struct Storage {
        var entries: [UUID: Entry] = [:]
        /// Pending candidates in (occurred_at, id) order; may hold ids no longer pending.
        var order: [UUID] = []
        var deadLetters: [DeadLetter] = []
        var lease: (owner: String, expiresAt: Int64)?
        var leaseAcquisitions = 0
        var pauses: [String: DeliveryPause] = [:]
    }

    private let storage = Lock(Storage())

    /// Creates an empty outbox.
    public init() {}

    /// The stored pause of `destination`.
    public func pause(of destination: String) throws -> DeliveryPause? {
        storage.withLock { $0.pauses[destination] }
    }

    /// Stores the pause of `destination`.
    public func setPause(_ pause: DeliveryPause, of destination: String) throws {
        storage.withLock { $0.pauses[destination] = pause }
    }

    /// Removes the pause of `destination`.
    public func clearPause(of destination: String) throws {
        _ = storage.withLock { $0.pauses.removeValue(forKey: destination) }
    }

    /// Adds impressions as pending (duplicates by id are ignored), like the store does for `paywall_shown`.
    public func add(_ events: [EventRecord]) {
        storage.withLock { storage in
            for event in events where storage.entries[event.id] == nil {
                storage.entries[event.id] = Entry(event: event, state: .pending, attempts: 0, nextAttemptAt: 0)
            }
            Self.sortOrder(&storage)
        }
    }

    /// Every row, keyed by event id.
    public var entries: [UUID: Entry] { storage.withLock { $0.entries } }
    /// The dead-letter history.
    public var deadLetters: [DeadLetter] { storage.withLock { $0.deadLetters } }
    /// Ids in `state`.
    public func ids(in state: State) -> Set<UUID> {
        storage.withLock { Set($0.entries.values.filter { $0.state == state }.map(\.event.id)) }
    }
    /// The current lease holder, if any (expired or not).
    public var leaseOwner: String? { storage.withLock { $0.lease?.owner } }

    /// See `EventOutbox`.
    public func acquireLease(owner: String, now: Int64, durationMs: Int64) throws -> Bool {
        storage.withLock { storage in
            if let lease = storage.lease, lease.owner != owner, lease.expiresAt > now { return false }
            storage.lease = (owner, now + durationMs)
            storage.leaseAcquisitions += 1
            return true
        }
    }

    /// See `EventOutbox`.
    public func releaseLease(owner: String) throws {
        storage.withLock { storage in
            if storage.lease?.owner == owner { storage.lease = nil }
        }
    }

    /// See `EventOutbox`.
    public func due(now: Int64, limit: Int) throws -> [OutboxItem] {
        storage.withLock { storage in
            var dropped = 0
            while dropped < storage.order.count, storage.entries[storage.order[dropped]]?.state != .pending {
                dropped += 1
            }
            if dropped > 0 { storage.order.removeFirst(dropped) }
            var items: [OutboxItem] = []
            for id in storage.order where items.count < limit {
                guard let entry = storage.entries[id], entry.state == .pending, entry.nextAttemptAt <= now else {
                    continue
                }
                items.append(OutboxItem(event: entry.event, attempts: entry.attempts))
            }
            return items
        }
    }

    /// See `EventOutbox`.
    public func nextAttemptTime() throws -> Int64? {
        storage.withLock { storage in
            storage.entries.values.lazy.filter { $0.state == .pending }.map(\.nextAttemptAt).min()
        }
    }

    /// See `EventOutbox`.
    public func markDelivered(_ ids: [UUID], at: Int64) throws {
        storage.withLock { storage in
            for id in ids where storage.entries[id]?.state == .pending {
                storage.entries[id]?.state = .delivered
                storage.entries[id]?.deliveredAt = at
            }
        }
    }

    /// See `EventOutbox`.
    public func scheduleRetry(_ ids: [UUID], attempts: Int, notBefore: Int64) throws {
        storage.withLock { storage in
            for id in ids where storage.entries[id]?.state == .pending {
                storage.entries[id]?.attempts = attempts
                storage.entries[id]?.nextAttemptAt = notBefore
            }
        }
    }

    /// See `EventOutbox`.
    public func deadLetter(_ ids: [UUID], status: Int, reason: String, at: Int64) throws {
        storage.withLock { storage in
            for id in ids where storage.entries[id]?.state == .pending {
                storage.entries[id]?.state = .dead
                storage.deadLetters.append(DeadLetter(eventID: id, status: status, reason: reason, deadAt: at))
            }
        }
    }

    /// See `EventOutbox`.
    public func requeueDeadLetters(now: Int64) throws -> Int {
        storage.withLock { storage in
            let dead = storage.entries.values.filter { $0.state == .dead }.map(\.event.id)
            for id in dead {
                storage.entries[id]?.state = .pending
                storage.entries[id]?.attempts = 0
                storage.entries[id]?.nextAttemptAt = now
            }
            for index in storage.deadLetters.indices where storage.deadLetters[index].requeuedAt == nil {
                storage.deadLetters[index].requeuedAt = now
            }
            Self.sortOrder(&storage)
            return dead.count
        }
    }

    /// Rebuilds the pending order: (occurred_at, id text) ascending.
    private static func sortOrder(_ storage: inout Storage) {
        let keyed = storage.entries.values.filter { $0.state == .pending }
            .map { (time: $0.event.occurredAt, text: $0.event.id.uuidString, id: $0.event.id) }
            .sorted { $0.time != $1.time ? $0.time < $1.time : $0.text < $1.text }
        storage.order = keyed.map(\.id)
    }
}
