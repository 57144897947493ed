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
/// if result.refusedAny { print("some lines were quarantined or in conflict") }
/// ```
public struct Importer: Sendable {
    /// The store written to.
    public let store: EventStore
    /// The catalog validator.
    public let validator: EventValidator
    /// Options.
    public let options: ImportOptions

    /// Creates an importer.
    public init(
        store: EventStore, validator: EventValidator = EventValidator(), options: ImportOptions = ImportOptions()
    ) {
        self.store = store
        self.validator = validator
        self.options = options
    }

    /// Imports each path in turn (`-` is standard input); an SQLite file (by its header) is imported
    /// as another store, anything else as NDJSON. Every input is opened and read once: the header is
    /// sniffed from the same descriptor the NDJSON reader then goes on with (its bytes handed over),
    /// so pipes, FIFOs, `/dev/stdin` and `<(…)` lose nothing and never block on a second open.
    ///
    /// - Parameter progress: called after every committed batch.
    /// - Returns: the summed counts.
    /// - Throws: ``ImportError`` (missing or unreadable input, an SQLite file that is not a store,
    ///   an SQLite file read from a pipe) or `StorageError`; batches committed before the error stay
    ///   committed.
    public func importFiles(_ paths: [String], progress: (ImportProgress) -> Void = { _ in }) throws -> ImportResult {
        var total = ImportResult()
        for path in paths {
            let input = try Self.openAndSniff(path)
            if input.isSQLite {
                if input.descriptor != STDIN_FILENO { close(input.descriptor) }
                guard input.isRegularFile else {
                    throw ImportError(.databaseFromStream, path: path, detail: "not a regular file")
                }
                total = total + (try importDatabase(path: path, progress: progress))
            } else {
                total =
                    total
                    + (try importNDJSON(
                        descriptor: input.descriptor, alreadyRead: input.header, path: path,
                        progress: progress))
            }
        }
        return total
    }

    /// SQLite's file header, the first 16 bytes of every database file.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// Whether `path` starts with SQLite's file header (opens and reads the path once; do not use it
    /// on a pipe or FIFO you mean to read afterwards).
    public static func isSQLite(_ path: String) throws -> Bool {
        let input = try openAndSniff(path)
        if input.descriptor != STDIN_FILENO { close(input.descriptor) }
        return input.isSQLite
    }

    /// An input opened once, with its first bytes.
    struct SniffedInput {
        var descriptor: Int32
        /// The bytes read from a stream (handed to the NDJSON reader); empty for a regular file,
        /// whose header is read with `pread` and so stays unread.
        var header: [UInt8]
        var isSQLite: Bool
        var isRegularFile: Bool
    }

    /// Opens `path` (`-`: standard input) and reads its first 16 bytes: with `pread` from a regular
    /// file (the offset does not move), else with `read` until 16 bytes or the end of the input.
    static func openAndSniff(_ path: String) throws -> SniffedInput {
        let descriptor = path == "-" ? STDIN_FILENO : try openForReading(path)
        var info = stat()
        let regular = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        var header = [UInt8](repeating: 0, count: sqliteHeader.count)
        var count = 0
        if regular {
            count = header.withUnsafeMutableBytes { max(0, pread(descriptor, $0.baseAddress, $0.count, 0)) }
        } else {
            while count < header.count {
                let got = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, $0.count - count) }
                if got < 0, errno == EINTR { continue }
                if got < 0 {
                    let detail = String(cString: strerror(errno))
                    if descriptor != STDIN_FILENO { close(descriptor) }
                    throw ImportError(.unreadable, path: path, detail: detail)
                }
                if got == 0 { break }
                count += got
            }
        }
        let isSQLite = count == header.count && header == sqliteHeader
        return SniffedInput(
            descriptor: descriptor, header: regular ? [] : Array(header.prefix(count)),
            isSQLite: isSQLite, isRegularFile: regular)
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
    /// `deliveries` (a database import: one per event) are the source's delivery states: a new
    /// impression takes its state, and a duplicate pending here takes a delivery or dead letter.
    func commit(
        _ events: [EventRecord], quarantine: [QuarantineEntry], provenance: EventProvenance,
        deliveries: [ImportedDelivery]? = nil
    ) throws
        -> (outcome: InsertOutcome, alreadyQuarantined: Int)
    {
        let time = store.now.milliseconds()
        return try store.connection.transaction { db in
            try write(
                db, events, quarantine: quarantine, provenance: provenance, recordedAt: time, deliveries: deliveries)
        }
    }

    /// ``commit(_:quarantine:provenance:deliveries:)`` inside a transaction the caller holds,
    /// with `recordedAt` as the events' `recorded_at` (one time per transaction); `idsWithoutIndex`
    /// while that transaction left the id index out (``FirstImportIDs``).
    func write(
        _ db: Database, _ events: [EventRecord], quarantine: [QuarantineEntry], provenance: EventProvenance,
        recordedAt time: Int64, deliveries: [ImportedDelivery]? = nil, idsWithoutIndex: FirstImportIDs? = nil
    ) throws -> (outcome: InsertOutcome, alreadyQuarantined: Int) {
        let forwarded = !options.forward
        var writer = EventWriter(db: db)
        writer.importedDeliveries = deliveries
        writer.idsWithoutIndex = idsWithoutIndex
        var outcome = try writer.insert(events, recordedAt: time, forwarded: forwarded, provenance: provenance)
        if let deliveries {
            for index in outcome.duplicateIndexes where deliveries[index] != .pending {
                let event = events[index]
                guard event.name == .paywallShown, let taken = try Deliveries.take(db, id: event.id) else {
                    continue
                }
                try deliveries[index].record(
                    db, id: event.id, eventRowid: taken.rowid, occurredAt: taken.occurredAt)
            }
        }
        // Conflicts and bad lines enter the quarantine in line order, whatever the transaction size.
        var entries = quarantine + outcome.conflictEntries
        if !outcome.conflictEntries.isEmpty {
            entries = entries.enumerated().sorted {
                ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
            }
            .map(\.element)
        }
        var already = 0
        for entry in entries {
            switch try writer.quarantineResult(entry) {
            case .stored: break
            case .alreadyQuarantined: already += 1
            case .suppressed: outcome.suppressedLines += 1
            }
        }
        return (outcome, already)
    }
}

extension ImportResult {
    /// Adds one committed batch: its events' outcome and its invalid lines.
    mutating func add(_ outcome: InsertOutcome, quarantined: Int, alreadyQuarantined already: Int) {
        imported += outcome.inserted
        duplicates += outcome.duplicates
        suppressed += outcome.suppressed + outcome.suppressedLines
        conflicts += outcome.conflicts
        self.quarantined += quarantined - outcome.suppressedLines
        alreadyQuarantined += already
    }
}
