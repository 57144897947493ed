/// What storing one batch did: each event is exactly one of inserted, duplicate or conflict.
struct InsertOutcome: Sendable, Hashable {
    /// Events stored for the first time.
    var inserted = 0
    /// Events identical to one already stored (or earlier in the batch): nothing changed.
    var duplicates = 0
    /// Events whose id was stored with other content: the stored row kept, this version quarantined.
    var conflicts = 0
    /// Of ``conflicts``, those whose quarantine payload was already in the quarantine.
    var conflictsAlreadyQuarantined = 0

    static func + (lhs: InsertOutcome, rhs: InsertOutcome) -> InsertOutcome {
        InsertOutcome(inserted: lhs.inserted + rhs.inserted, duplicates: lhs.duplicates + rhs.duplicates,
                      conflicts: lhs.conflicts + rhs.conflicts,
                      conflictsAlreadyQuarantined: lhs.conflictsAlreadyQuarantined + rhs.conflictsAlreadyQuarantined)
    }
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
