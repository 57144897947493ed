import Foundation
import PaywallCore
import PaywallSQLite

extension Importer {
    /// The columns read from the source store: an event's (``EventColumn/record``) but `recorded_at`,
    /// which this store sets; each name is the field name the validator reads.
    static let sourceColumns = EventColumn.record.filter { $0 != .recordedAt }.map(\.columnName)

    /// The source columns every store's `events` has; the others (the context columns of catalog
    /// version 2) are missing from a store of an older schema and are read as `NULL` there
    /// (``missingSourceColumns(_:)``), as its version 1 events carry none.
    static let requiredSourceColumns = EventColumn.record.filter { $0 != .recordedAt && $0.contextField == nil }
        .map(\.columnName)

    /// The ``sourceColumns`` the attached source's `events` lacks (an older schema's store).
    static func missingSourceColumns(_ db: Database) throws -> Set<String> {
        let present = Set(
            try db.all("SELECT name FROM pragma_table_info('events', 'import_source')") { $0.string(at: 0) ?? "" })
        return Set(sourceColumns.filter { !present.contains($0) })
    }

    /// Imports the events of another store's SQLite file, attached read-only: each row is
    /// validated against the catalog like an NDJSON line, stored once by id, or quarantined
    /// (its payload rendered as a JSON object, `line` = the row's rowid). Each impression keeps its
    /// delivery state (see ``ImportedDelivery``): delivered or forwarded by the device there is
    /// delivered here, dead-lettered there is dead-lettered here, pending there is queued here
    /// (``ImportOptions/forward``); so shards of several collectors merge into one report store.
    /// The source is only read: a clean one (no `-wal`, or an empty one) is opened immutable and
    /// nothing beside it changes, see ``readOnlyURI(_:)``.
    ///
    /// - Throws: ``ImportError`` (`.missingInput`, `.notAStore`) or `StorageError`.
    public func importDatabase(path: String, progress: (ImportProgress) -> Void = { _ in }) throws -> ImportResult {
        close(try Self.openForReading(path))
        try Self.requireStore(path)
        let connection = store.connection
        do {
            try connection.run("ATTACH DATABASE ?1 AS import_source", [.text(Self.readOnlyURI(path))])
        } catch let error as StorageError {
            throw ImportError(.unreadable, path: path, detail: error.message)
        }
        defer { try? connection.execute("DETACH DATABASE import_source") }
        let total: Int64
        do {
            total = try connection.scalar("SELECT count(*) FROM import_source.events")?.int64 ?? 0
            _ = try connection.scalar(
                "SELECT \(Self.requiredSourceColumns.joined(separator: ", ")) FROM import_source.events LIMIT 0")
        } catch let error as StorageError {
            throw ImportError(error.kind == .corrupt ? .unreadable : .notAStore, path: path, detail: error.message)
        }
        let select: String
        do {
            select = try connection.withDatabase {
                Self.sourceSelect(try SourceLayout.of($0), missing: try Self.missingSourceColumns($0))
            }
        } catch let error as StorageError {
            throw ImportError(.notAStore, path: path, detail: error.message)
        }
        var result = ImportResult()
        var lastRowID: Int64 = 0
        var done: Int64 = 0
        let plan = bulkPlan(inputBytes: ImportCache.fileBytes(path))
        try ImportCache.with(connection, bytes: plan.cacheBytes) {
            while true {
                var batch = Batch(capacity: options.batchSize)
                var deliveries: [ImportedDelivery] = []
                var deadLetters: [(index: Int, rowid: Int64)] = []
                var rows = 0
                try connection.withDatabase { db in
                    try db.forEachRow(select, [.integer(lastRowID), .integer(Int64(options.batchSize))]) { row in
                        rows += 1
                        lastRowID = row.int64(at: 0)
                        let members = Self.members(of: row)
                        switch validator.validate(members: members) {
                        case .valid(let event):
                            let delivery = Self.delivery(of: row)
                            if let rowid = delivery.deadLetterRowid { deadLetters.append((deliveries.count, rowid)) }
                            deliveries.append(delivery.state)
                            batch.add(event, line: Int(lastRowID))
                        case .invalid(let issues):
                            batch.add(
                                QuarantineEntry(
                                    quarantinedAt: store.now.milliseconds(), reasons: issues.map(\.description),
                                    payload: Self.json(members), origin: path, line: Int(lastRowID)))
                        }
                        return true
                    }
                    for letter in deadLetters {
                        if let dead = try Self.deadLetter(db, rowid: letter.rowid) { deliveries[letter.index] = dead }
                    }
                }
                if rows == 0 { break }
                done += Int64(rows)
                let (outcome, already) = try commit(
                    batch.events, quarantine: batch.quarantine,
                    provenance: EventProvenance(origin: path, lines: batch.lines),
                    deliveries: deliveries)
                result.add(outcome, quarantined: batch.quarantine.count, alreadyQuarantined: already)
                progress(ImportProgress(origin: path, done: done, total: total, result: result))
            }
        }
        return result
    }

    /// Throws ``ImportError/Kind/notAStore`` unless `path` is a PaywallAnalytics store (marked, or an
    /// older one with the store's tables), checked without a trace (``DatabaseIdentity/classify(fileAt:)``)
    /// before it is attached.
    static func requireStore(_ path: String) throws {
        let verdict: DatabaseIdentity.Verdict
        do {
            verdict = try Schema.identity.classify(fileAt: path)
        } catch let error as StorageError {
            let detail = error.message.isEmpty ? error.summary : error.message
            throw ImportError(.unreadable, path: path, detail: detail)
        }
        switch verdict {
        case .ours: return
        case .empty: throw ImportError(.notAStore, path: path, detail: "it holds no tables")
        case .foreign(let reason): throw ImportError(.notAStore, path: path, detail: reason + "; it was left untouched")
        }
    }

    /// A row as flat JSON members (NULL columns absent), the validator's input.
    static func members(of row: Row) -> [(key: String, value: FlatJSONValue)] {
        var members: [(key: String, value: FlatJSONValue)] = []
        members.reserveCapacity(sourceColumns.count)
        for (offset, column) in sourceColumns.enumerated() {
            switch row.value(at: offset + 1) {
            case .null: continue
            case .text(let text): members.append((column, .string(text)))
            case .integer(let number): members.append((column, .number(String(number))))
            case .real(let number): members.append((column, number.isFinite ? .number("\(number)") : .number("1e999")))
            case .blob: members.append((column, .nested("blob")))
            }
        }
        return members
    }

    /// Renders members as a JSON object (the quarantine payload of a refused row).
    static func json(_ members: [(key: String, value: FlatJSONValue)]) -> String {
        let quoted = NDJSONLine.quoted
        let body = members.map { key, value -> String in
            switch value {
            case .string(let text): return "\(quoted(key)):\(quoted(text))"
            case .number(let text): return "\(quoted(key)):\(text)"
            case .bool(let flag): return "\(quoted(key)):\(flag)"
            case .null: return "\(quoted(key)):null"
            case .nested(let kind): return "\(quoted(key)):\(quoted("<\(kind)>"))"
            }
        }
        return "{" + body.joined(separator: ",") + "}"
    }

    /// `file:` URI opening `path` read-only (characters with meaning in URIs escaped).
    ///
    /// The promise, for a source whose `-wal` is absent or empty (a clean source: a store closed
    /// cleanly, a `sqlite3 .backup` copy, or one whose writer was killed right after a truncating
    /// checkpoint): everything is in its main file, so it is opened immutable (SQLite's `immutable=1`).
    /// Nothing beside it is created, read or written, not even an `-shm` left there (its size and
    /// modification time stay as they were), no lock is taken, and a read-only folder is read too.
    /// Such a source must not be written during the import (stop its collector, or import a copy).
    ///
    /// A source whose `-wal` holds frames (its writer is still open, or was killed before a
    /// checkpoint) is opened read-only (`mode=ro`) through its `-wal` and `-shm`, so its latest
    /// commits are imported too. SQLite may then update the `-shm` (the WAL's index, rebuilt from the
    /// `-wal` whenever needed), but the main file and the `-wal` are never written.
    static func readOnlyURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(escaped)?\(hasFrames(inWALOf: absolute) ? "mode=ro" : "immutable=1")"
    }

    /// Whether the `-wal` beside `path` exists and is not empty (an unreadable one counts as holding frames).
    static func hasFrames(inWALOf path: String) -> Bool {
        var info = stat()
        guard stat(path + "-wal", &info) == 0 else { return errno != ENOENT }
        return info.st_size > 0
    }
}
