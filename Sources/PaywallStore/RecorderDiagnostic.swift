import PaywallSQLite

/// What the recorder reports through its diagnostics hook (the recording path itself never throws).
public enum RecorderDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// A commit failed; the events stay in memory (within the bound) and are retried.
    case commitFailed(StorageError, heldEvents: Int)
    /// A commit succeeded after failures; every held event is now stored.
    case recovered(afterFailures: Int, committedEvents: Int)
    /// The buffer reached its bound and began dropping new events (reported once per episode).
    case droppingAtBound(capacity: Int, droppedSoFar: Int)
    /// The final commit on close failed; these events were not stored.
    case lostOnClose(StorageError, events: Int)
    /// Recorded events reused the id of a stored event with other content: the stored event was
    /// kept and each of these went to the quarantine (origin `recorder`) with the fields that differ.
    case conflictsQuarantined(count: Int)

    /// A sentence for logs: what happened and what to do.
    public var description: String {
        switch self {
        case .commitFailed(let error, let held):
            return "Recorder could not save \(held) event(s); they stay in memory and will be retried. \(error)"
        case .recovered(let failures, let committed):
            return "Recorder saved \(committed) held event(s) after \(failures) failed attempt(s)."
        case .droppingAtBound(let capacity, let dropped):
            return "Recorder buffer is full (\(capacity) events waiting for the database); new events are being "
                + "dropped and counted (\(dropped) so far). Fix the storage error reported before this one."
        case .lostOnClose(let error, let events):
            return "Recorder closed with \(events) event(s) not saved. \(error)"
        case .conflictsQuarantined(let count):
            return "Recorder got \(count) event(s) whose id is already stored with other content; the stored events "
                + "were kept and these went to the quarantine. Give every new event a new id (UUIDv7.make)."
        }
    }
}
