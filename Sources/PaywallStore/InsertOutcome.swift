/// What storing one batch did: each event is exactly one of inserted, duplicate, conflict or
/// suppressed (a forgotten customer's: not stored, see ``Suppression``).
struct InsertOutcome: Sendable, Hashable {
    /// Events of forgotten customers, not stored.
    var suppressed = 0
    /// Refused lines (quarantine entries) of forgotten customers, not stored (set by the importer).
    var suppressedLines = 0
    /// Events stored for the first time.
    var inserted = 0
    /// Events identical to one already stored (or earlier in the batch): nothing changed.
    var duplicates = 0
    /// Events whose id was stored with other content: the stored row kept, this version quarantined.
    var conflicts = 0
    /// The quarantine entries of the conflicts, in batch order; the caller writes them in the same
    /// transaction (the importer merges them with the bad lines in line order).
    var conflictEntries: [QuarantineEntry] = []
}

/// Where a batch's events came from, for the quarantine rows of its conflicts.
struct EventProvenance: Sendable {
    /// The file, database or component (`recorder`) the events came from.
    var origin: String?
    /// Each event's 1-based line (or row) number in ``origin``, in batch order, when known.
    var lines: [Int]?

    /// Nothing known (a direct ``EventStore/insert(_:forwarded:droppedAtBound:durable:)``).
    static let unknown = EventProvenance(origin: nil, lines: nil)

    func line(_ index: Int) -> Int? {
        guard let lines, index < lines.count else { return nil }
        return lines[index]
    }
}
