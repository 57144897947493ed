import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an import of webhook bodies did, line by line (every non-blank line counted once in one of
/// ``imported``, ``duplicates``, ``quarantined`` or ``suppressed``).
public struct SubscriptionImportResult: Sendable, Equatable {
    /// New subscription events stored.
    public var imported = 0
    /// Lines whose `event.id` was already stored (or earlier in the input).
    public var duplicates = 0
    /// Lines that can never be events, in the quarantine with their reasons.
    public var quarantined = 0
    /// Lines of forgotten customers, refused and counted.
    public var suppressed = 0
    /// Of ``imported``, sandbox purchases and `TEST` events (stored, counted only in data quality).
    public var sandbox = 0

    /// Creates an empty result.
    public init() {}

    /// Adds `other`'s counts.
    public mutating func add(_ other: SubscriptionImportResult) {
        imported += other.imported
        duplicates += other.duplicates
        quarantined += other.quarantined
        suppressed += other.suppressed
        sandbox += other.sandbox
    }
}

/// An input that is an SQLite database (by its header), not NDJSON webhook bodies: refused before
/// anything of it is stored.
public struct SQLiteInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input's path (`-` for standard input).
    public var path: String
    /// What went wrong and what to do.
    public var description: String {
        "\(path) is an SQLite database, not RevenueCat webhook bodies (one JSON body per line); import a store without --revenuecat"
    }
}

/// Imports RevenueCat webhook bodies from NDJSON (one whole body per line, `-` for standard
/// input) through ``SubscriptionEventStore``: the same dedupe, quarantine and suppression as the
/// collector's webhook route. Streams the input in chunks; each batch is one synced transaction, so
/// an interrupted import keeps whole batches and a rerun stores nothing twice.
///
/// ```swift
/// let result = try SubscriptionImporter(store: subscriptions).importFile("webhooks.ndjson")
/// ```
public struct SubscriptionImporter: Sendable {
    /// The `origin` of quarantine rows from an import of `path`: `revenuecat: <path>` (`stdin` for `-`).
    public static func origin(of path: String) -> String { "revenuecat: " + (path == "-" ? "stdin" : path) }

    /// Where the bodies go.
    public let store: SubscriptionEventStore
    /// Lines per transaction.
    public var batchSize: Int
    /// The longest line kept whole; a longer one is quarantined with its first 512 bytes.
    public var maxLineBytes: Int
    /// The time bodies are received at (Unix milliseconds), asked once per batch.
    public var now: @Sendable () -> Int64

    /// Creates an importer.
    public init(
        store: SubscriptionEventStore, batchSize: Int = 1_000, maxLineBytes: Int = 1 << 20,
        now: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    ) {
        self.store = store
        self.batchSize = max(1, batchSize)
        self.maxLineBytes = max(1, maxLineBytes)
        self.now = now
    }

    /// Imports the NDJSON file at `path` (`-`: standard input); blank lines are skipped, a `\r`
    /// before the `\n` is not part of the body.
    ///
    /// - Throws: ``PaywallStore/ImportError`` (`.missingInput`, `.unreadable`) for the input,
    ///   ``SQLiteInputError`` for an SQLite file (nothing stored), `StorageError` for the store;
    ///   batches committed before the failure stay.
    public func importFile(_ path: String) throws -> SubscriptionImportResult {
        let descriptor: Int32
        if path == "-" {
            descriptor = STDIN_FILENO
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let detail = String(cString: strerror(errno))
                throw ImportError(errno == ENOENT ? .missingInput : .unreadable, path: path, detail: detail)
            }
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw ImportError(.unreadable, path: path, detail: "it is a directory; pass an NDJSON file")
        }
        let origin = Self.origin(of: path)
        var result = SubscriptionImportResult()
        var batch: [Data] = []
        var lines: [Int] = []
        var longLines: [(line: Int, entry: QuarantineEntry)] = []
        func flush() throws {
            guard !batch.isEmpty || !longLines.isEmpty else { return }
            let time = now()
            let outcomes = try store.ingest(batch, receivedAtMs: time, origin: origin, lines: lines)
            for (body, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .stored:
                    result.imported += 1
                    if case .success(let event) = WebhookExtraction.extract(Array(body)), event.isSandbox {
                        result.sandbox += 1
                    }
                case .duplicate: result.duplicates += 1
                case .quarantined: result.quarantined += 1
                case .suppressed: result.suppressed += 1
                }
            }
            for long in longLines {
                var entry = long.entry
                entry.quarantinedAt = time
                switch try store.quarantine(entry) {
                case .suppressed: result.suppressed += 1
                case .stored, .alreadyQuarantined: result.quarantined += 1
                }
            }
            batch.removeAll(keepingCapacity: true)
            lines.removeAll(keepingCapacity: true)
            longLines.removeAll()
        }

        var pending: [UInt8] = []
        var lineNumber = 0
        var overlong: (kept: [UInt8], hash: SHA256, length: Int)?
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        func finishLine(_ bytes: ArraySlice<UInt8>) {
            lineNumber += 1
            if var long = overlong {
                var tail = bytes
                if tail.last == UInt8(ascii: "\r") { tail = tail.dropLast() }
                long.hash.update(Array(tail))
                long.length += tail.count
                let reason =
                    "the line is \(long.length) bytes, longer than the \(maxLineBytes)-byte limit; a webhook body is kept "
                    + "whole only up to that size (its first \(long.kept.count) bytes are shown)"
                longLines.append(
                    (
                        lineNumber,
                        QuarantineEntry(
                            quarantinedAt: 0, reasons: [reason], kept: long.kept, identity: long.hash.finalize(),
                            whole: false, origin: origin, line: lineNumber)
                    ))
                overlong = nil
                return
            }
            var body = bytes
            if body.last == UInt8(ascii: "\r") { body = body.dropLast() }
            if body.count > maxLineBytes {
                // Counted, hashed and kept in part by the over-long path, as a line longer than a chunk is.
                overlong = (Array(body.prefix(512)), SHA256(), 0)
                lineNumber -= 1
                finishLine(body)
                return
            }
            guard body.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { return }
            batch.append(Data(body))
            lines.append(lineNumber)
        }
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            if got < 0 { throw ImportError(.unreadable, path: path, detail: String(cString: strerror(errno))) }
            if got == 0 { break }
            if lineNumber == 0, pending.isEmpty, overlong == nil, got >= 16,
                Array(chunk[0..<16]) == Array("SQLite format 3\u{0}".utf8)
            {
                throw SQLiteInputError(path: path)
            }
            var start = 0
            let view = chunk[0..<got]
            while let newline = view[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if overlong != nil {
                    finishLine(view[start..<newline])
                } else if pending.isEmpty {
                    finishLine(view[start..<newline])
                } else {
                    pending += view[start..<newline]
                    finishLine(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                start = newline + 1
                if batch.count + longLines.count >= batchSize { try flush() }
            }
            let rest = view[start...]
            if var long = overlong {
                long.hash.update(Array(rest))
                long.length += rest.count
                overlong = long
            } else {
                pending += rest
                if pending.count > maxLineBytes {
                    var hash = SHA256()
                    hash.update(pending)
                    overlong = (Array(pending.prefix(512)), hash, pending.count)
                    pending.removeAll()
                }
            }
        }
        if overlong != nil || !pending.isEmpty { finishLine(pending[...]) }
        try flush()
        return result
    }
}

extension SubscriptionEventStore {
    /// Adds one quarantine entry in its own transaction (an over-long imported line).
    func quarantine(_ entry: QuarantineEntry) throws -> StoreSharedWrites.QuarantineOutcome {
        try connection.transaction(.immediate) { db in try StoreSharedWrites.quarantine(entry, db) }
    }
}
