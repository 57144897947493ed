import Foundation
import PaywallCore
import PaywallSQLite
import PaywallWire

/// What becomes of the impressions a write stores for the first time.
public enum NewImpressions: Sendable, Hashable {
    /// They enter this store's outbox as pending: this store's forwarder sends them to RevenueCat.
    case pending
    /// The app install that recorded them forwards them itself: they are recorded in `deliveries` as
    /// delivered by the device (`by_device`), and this store never sends them.
    case forwardedByDevice
}

/// One writer's share of a group commit: its valid events and its quarantined lines.
public struct CommitPart: Sendable {
    /// Valid events, in input order.
    public var events: [EventRecord]
    /// Refused lines, each kept in the quarantine.
    public var quarantine: [QuarantineEntry]
    /// What becomes of the part's newly stored impressions.
    public var impressions: NewImpressions
    /// Where the part came from (for the quarantine rows of its conflicts), e.g. `upload/ios-app`.
    public var origin: String?
    /// Each event's 1-based line number in its request or file, in the order of ``events``, when
    /// known: a conflict's quarantine row and ``GroupCommitOutcome/conflicts`` then name its line.
    public var eventLines: [Int]?

    /// Creates a part.
    public init(
        events: [EventRecord], quarantine: [QuarantineEntry], impressions: NewImpressions,
        origin: String? = nil, eventLines: [Int]? = nil
    ) {
        self.eventLines = eventLines
        self.events = events
        self.quarantine = quarantine
        self.impressions = impressions
        self.origin = origin
    }
}

/// What a group commit did for one part (accepted + duplicates + quarantined + suppressed = the
/// part's lines): the name this type had before it became one with the delivery machinery's counts
/// (`EventCounts`, in PaywallWire).
@available(*, deprecated, renamed: "EventCounts")
public typealias CommitCounts = EventCounts

/// What a group commit did for one part: its counts, and the events it quarantined because their
/// id is stored with other content (conflicts, found only at commit), each with its line and reason.
public struct GroupCommitOutcome: Sendable {
    /// accepted + duplicates + quarantined + suppressed = the part's lines.
    public var counts: EventCounts
    /// The part's conflicts, in input order (their count is in `counts.quarantined`, unless suppressed).
    public var conflicts: [QuarantineEntry]

    /// Creates an outcome.
    public init(counts: EventCounts, conflicts: [QuarantineEntry] = []) {
        self.counts = counts
        self.conflicts = conflicts
    }
}

extension EventStore {
    /// Stores several writers' parts in ONE write transaction (a group commit: one sync for all of
    /// them when the connection runs with `synchronous = FULL`), in order, so an id in two parts is
    /// stored by the first and a duplicate in the second.
    ///
    /// - Returns: one `EventCounts` per part, in order.
    /// - Throws: `StorageError`; then nothing of any part is stored (the transaction is rolled back).
    public func commitGroup(_ parts: [CommitPart]) throws -> [EventCounts] {
        try commitGroupOutcomes(parts).map(\.counts)
    }

    /// ``commitGroup(_:)``, also giving each part's conflicts (for an answer that lists them).
    public func commitGroupOutcomes(_ parts: [CommitPart]) throws -> [GroupCommitOutcome] {
        let time = now.milliseconds()
        return try connection.transaction(.immediate) { db in
            let writer = EventWriter(db: db)
            return try parts.map { part in
                let outcome = try writer.insert(
                    part.events, recordedAt: time, forwarded: part.impressions == .forwardedByDevice,
                    byDevice: part.impressions == .forwardedByDevice,
                    provenance: EventProvenance(origin: part.origin, lines: part.eventLines))
                var suppressedLines = 0
                for entry in part.quarantine where try writer.quarantineResult(entry) == .suppressed {
                    suppressedLines += 1
                }
                var conflicts: [QuarantineEntry] = []
                for entry in outcome.conflictEntries {
                    if try writer.quarantineResult(entry) == .suppressed {
                        suppressedLines += 1
                    } else {
                        conflicts.append(entry)
                    }
                }
                return GroupCommitOutcome(
                    counts: EventCounts(
                        accepted: outcome.inserted, duplicates: outcome.duplicates,
                        quarantined: part.quarantine.count + outcome.conflicts - suppressedLines,
                        suppressed: outcome.suppressed + suppressedLines),
                    conflicts: conflicts)
            }
        }
    }
}
