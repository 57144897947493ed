import Foundation
import PaywallCore
import PaywallSQLite

/// Imports NDJSON files (or standard input) and other stores' SQLite files into an
/// ``EventStore``: validates every event against the catalog, stores each id once, quarantines
/// bad lines with their reasons, streams in constant memory.
///
/// ```swift
/// let importer = Importer(store: store, options: ImportOptions(forward: !noForward))
/// let result = try importer.importFiles(paths) { progress in drawBar(progress) }
/// print("imported \(result.imported), duplicates \(result.duplicates), conflicts \(result.conflicts), quarantined \(result.quarantined)")
/// exit(result.exitCode)
/// ```
public struct Importer: Sendable {
    /// The store written to.
    public let store: EventStore
    /// The catalog validator.
    public let validator: EventValidator
    /// Options.
    public let options: ImportOptions

    /// Creates an importer.
    public init(store: EventStore, validator: EventValidator = EventValidator(), options: ImportOptions = ImportOptions()) {
        self.store = store
        self.validator = validator
        self.options = options
    }

    /// Imports each path in turn (`-` is standard input, read as NDJSON); an SQLite file (by its
    /// header) is imported as another store, anything else as NDJSON.
    ///
    /// - Parameter progress: called after every committed batch.
    /// - Returns: the summed counts.
    /// - Throws: ``ImportError`` (missing or unreadable input, an SQLite file that is not a store)
    ///   or `StorageError`; batches committed before the error stay committed.
    public func importFiles(_ paths: [String], progress: (ImportProgress) -> Void = { _ in }) throws -> ImportResult {
        var total = ImportResult()
        for path in paths {
            if path != "-", try Self.isSQLite(path) {
                total = total + (try importDatabase(path: path, progress: progress))
            } else {
                total = total + (try importNDJSON(path: path, progress: progress))
            }
        }
        return total
    }

    /// Whether `path` starts with SQLite's file header.
    public static func isSQLite(_ path: String) throws -> Bool {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = read(descriptor, &header, 16)
        return count == 16 && header == Array("SQLite format 3\0".utf8)
    }

    static func openForReading(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let detail = String(cString: strerror(errno))
            throw ImportError(errno == ENOENT ? .missingInput : .unreadable, path: path, detail: detail)
        }
        return descriptor
    }

    /// Writes one batch in one transaction; returns what became of its events and how many
    /// quarantine entries (bad lines and conflicts) were already in the quarantine (same payload).
    func commit(_ events: [EventRecord], quarantine: [QuarantineEntry], provenance: EventProvenance,
                path: WritePath) throws -> (outcome: InsertOutcome, alreadyQuarantined: Int) {
        let time = store.now.milliseconds()
        let forwarded = !options.forward
        return try store.connection.transaction { db in
            var writer = EventWriter(db: db)
            writer.path = path
            let outcome = try writer.insert(events, recordedAt: time, forwarded: forwarded, provenance: provenance)
            // Conflicts and bad lines enter the quarantine in line order, whatever the transaction size.
            var entries = quarantine + outcome.conflictEntries
            if !outcome.conflictEntries.isEmpty {
                entries = entries.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
                    .map(\.element)
            }
            var already = 0
            for entry in entries where try !writer.quarantine(entry) { already += 1 }
            return (outcome, already)
        }
    }
}

extension ImportResult {
    /// Adds one committed batch: its events' outcome and its invalid lines.
    mutating func add(_ outcome: InsertOutcome, quarantined: Int, alreadyQuarantined already: Int) {
        imported += outcome.inserted
        duplicates += outcome.duplicates
        conflicts += outcome.conflicts
        self.quarantined += quarantined
        alreadyQuarantined += already
    }
}
