import Foundation
import PaywallCore

extension Importer {
    /// Imports one NDJSON file (`-` for standard input), streaming it in chunks. Blank lines are
    /// skipped; a trailing `\r` is ignored; a line longer than ``ImportOptions/maxLineBytes`` is
    /// quarantined with its length and first bytes.
    ///
    /// - Throws: ``ImportError`` (missing, unreadable) or `StorageError`.
    public func importNDJSON(path: String, progress: (ImportProgress) -> Void = { _ in }) throws -> ImportResult {
        let descriptor = path == "-" ? STDIN_FILENO : try Self.openForReading(path)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        let total: Int64? = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        var reader = LineReader(descriptor: descriptor, path: path, chunkBytes: options.chunkBytes,
                                maxLineBytes: options.maxLineBytes)
        var batch = Batch(capacity: options.batchSize)
        var result = ImportResult()
        var readSoFar: Int64 = 0
        let origin = path == "-" ? "stdin" : path
        func commitBatch(_ done: Int64) throws {
            guard !batch.isEmpty else { return }
            let inserted = try commit(batch.events, quarantine: batch.quarantine)
            result.imported += inserted
            result.duplicates += batch.events.count - inserted
            result.quarantined += batch.quarantine.count
            batch.removeAll()
            progress(ImportProgress(origin: path, done: done, total: total, result: result))
        }
        try reader.forEachLine({ line in
            switch line {
            case .text(var bytes, let number):
                if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                switch validator.validate(line: bytes) {
                case .valid(let event):
                    batch.events.append(event)
                case .invalid(let issues):
                    batch.add(QuarantineEntry(quarantinedAt: store.now.milliseconds(), reasons: issues.map(\.description),
                                              payload: String(decoding: bytes, as: UTF8.self), origin: origin, line: number))
                }
            case .oversized(let prefix, let length, let number):
                let reason = "(line): \(length) bytes, longer than the \(options.maxLineBytes)-byte limit; "
                    + "an event is a small flat JSON object — fix or split the line (payload keeps the first \(prefix.count) bytes)"
                batch.add(QuarantineEntry(quarantinedAt: store.now.milliseconds(), reasons: [reason],
                                          payload: String(decoding: prefix, as: UTF8.self), origin: origin, line: number))
            }
            if batch.isFull(options.batchSize) { try commitBatch(readSoFar) }
        }, afterChunk: { readSoFar = $0 })
        try commitBatch(reader.bytesRead)
        progress(ImportProgress(origin: path, done: reader.bytesRead, total: total, result: result))
        return result
    }
}

/// Events and quarantine entries awaiting one transaction; full at the batch size or at 8 MiB of
/// quarantined payload (so memory stays bounded however bad the input is).
struct Batch {
    var events: [EventRecord] = []
    var quarantine: [QuarantineEntry] = []
    var quarantineBytes = 0

    init(capacity: Int) { events.reserveCapacity(capacity) }

    var isEmpty: Bool { events.isEmpty && quarantine.isEmpty }

    func isFull(_ size: Int) -> Bool { events.count + quarantine.count >= size || quarantineBytes >= 8 << 20 }

    mutating func add(_ entry: QuarantineEntry) {
        quarantine.append(entry)
        quarantineBytes += entry.payload.utf8.count
    }

    mutating func removeAll() {
        events.removeAll(keepingCapacity: true)
        quarantine.removeAll()
        quarantineBytes = 0
    }
}
