import Foundation
import PaywallCore
import PaywallSQLite

/// Reads and validates NDJSON on background threads while the caller writes: a reader thread
/// splits the input into batches of lines, validates each batch on all cores in parallel, and
/// hands the results in input order through a bounded channel (so memory stays bounded).
struct NDJSONPipeline: Sendable {
    /// Lines of one batch: the bytes back to back, each line's range and number.
    struct LineBatch: Sendable {
        var bytes: [UInt8] = []
        var lines: [(start: Int, count: Int, number: Int)] = []
        var oversized: [(prefix: [UInt8], length: Int, digest: [UInt8], number: Int)] = []
        var count: Int { lines.count + oversized.count }
    }

    /// A validated batch with the input's bytes read so far.
    struct Item: Sendable {
        let batch: Batch
        let bytesRead: Int64
    }

    let validator: EventValidator
    let options: ImportOptions
    let now: Now
    let origin: String

    /// Starts the reader thread on `descriptor` (``BackgroundReader``); it yields validated batches
    /// in input order, then ends, or throws the ``ImportError`` that stopped the reading (after a
    /// batch of the complete lines read before it). Once it is stopped with waiting, the thread no
    /// longer touches the descriptor. `alreadyRead` holds the bytes the caller read from the
    /// descriptor before (they come first).
    /// `capacity`: validated batches the channel holds.
    func start(
        descriptor: Int32, path: String, capacity: Int, alreadyRead: [UInt8] = []
    ) -> BackgroundReader<Item> {
        let pipeline = self
        return BackgroundReader(capacity: capacity, name: "PaywallStore.Import.reader") { send in
            var reader = LineReader(
                descriptor: descriptor, path: path, chunkBytes: pipeline.options.chunkBytes,
                maxLineBytes: pipeline.options.maxLineBytes, alreadyRead: alreadyRead)
            var readSoFar: Int64 = 0
            var open = true
            // Bytes of lines per batch. One line buffer is reused (validation happens on this thread
            // before hand-off), so memory stays near this budget + the line limit + the validated
            // batches in the channel, whatever the file size.
            let byteBudget = max(4 << 20, 2 * pipeline.options.maxLineBytes)
            var lines = LineBatch()
            lines.bytes.reserveCapacity(byteBudget + pipeline.options.maxLineBytes)
            func ship() {
                guard open, lines.count > 0 else { return }
                open = send(Item(batch: pipeline.validate(lines), bytesRead: readSoFar))
                lines.bytes.removeAll(keepingCapacity: true)
                lines.lines.removeAll(keepingCapacity: true)
                lines.oversized.removeAll()
            }
            do {
                try reader.forEachLine(
                    { line in
                        switch line {
                        case .text(let bytes, let number):
                            lines.lines.append((lines.bytes.count, bytes.count, number))
                            lines.bytes.append(contentsOf: bytes)
                        case .oversized(let prefix, let length, let digest, let number):
                            lines.oversized.append((prefix, length, digest, number))
                        }
                        if lines.count >= pipeline.options.batchSize || lines.bytes.count >= byteBudget { ship() }
                        if !open { throw CancellationError() }
                    }, afterChunk: { readSoFar = $0 })
                ship()
            } catch is CancellationError {
                // The importer stopped reading.
            } catch {
                // A failed read: the complete lines read before it are good, so they go out first
                // (an unfinished last line stays behind); then the error, in its place.
                ship()
                throw error
            }
        }
    }

    /// How many threads validate a batch: every core but one, which the caller needs for the
    /// SQLite inserts (the import's bottleneck); on one or two cores, the reader thread alone.
    static func validationWorkers(cores: Int, lines: Int) -> Int {
        max(1, min(cores - 1, lines / 256))
    }

    /// Validates a batch of lines, splitting it across the machine's cores but one; keeps input order.
    func validate(_ batch: LineBatch) -> Batch {
        validate(
            batch,
            workers: Self.validationWorkers(
                cores: ProcessInfo.processInfo.activeProcessorCount,
                lines: batch.lines.count))
    }

    /// Validates a batch of lines on `workers` threads (the calling one alone when 1); keeps input order.
    func validate(_ batch: LineBatch, workers: Int) -> Batch {
        guard workers > 1 else {
            return finish(validate(batch, lines: 0..<batch.lines.count), oversized: batch.oversized)
        }
        let parts = (0..<workers).map { worker in
            (batch.lines.count * worker / workers)..<(batch.lines.count * (worker + 1) / workers)
        }
        let results = UnsafeMutableBufferPointer<Batch>.allocate(capacity: workers)
        results.initialize(repeating: Batch(capacity: 0))
        defer {
            results.deinitialize()
            results.deallocate()
        }
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            output[worker] = validate(batch, lines: parts[worker])
        }
        var merged = results[0]
        for worker in 1..<workers {
            merged.events += results[worker].events
            merged.lines += results[worker].lines
            for entry in results[worker].quarantine { merged.add(entry) }
        }
        return finish(merged, oversized: batch.oversized)
    }

    /// Validates some of a batch's lines, in order.
    func validate(_ batch: LineBatch, lines: Range<Int>) -> Batch {
        var part = Batch(capacity: lines.count)
        batch.bytes.withUnsafeBytes { all in
            for index in lines {
                let line = batch.lines[index]
                validateLine(
                    UnsafeRawBufferPointer(rebasing: all[line.start..<(line.start + line.count)]),
                    number: line.number, into: &part)
            }
        }
        return part
    }

    /// Adds the quarantine entries of the batch's oversized lines.
    func finish(_ validated: Batch, oversized: [(prefix: [UInt8], length: Int, digest: [UInt8], number: Int)]) -> Batch
    {
        var merged = validated
        for long in oversized {
            let reason =
                "(line): \(long.length) bytes, longer than the \(options.maxLineBytes)-byte limit; an event is "
                + "a small flat JSON object — fix or split the line (payload keeps the first \(long.prefix.count) bytes)"
            merged.add(
                QuarantineEntry(
                    quarantinedAt: now.milliseconds(), reasons: [reason], kept: long.prefix,
                    identity: long.digest, whole: false, origin: origin, line: long.number))
        }
        return merged
    }

    /// Validates one line into `batch`: blank lines are skipped, a trailing `\r` is ignored.
    func validateLine(_ raw: UnsafeRawBufferPointer, number: Int, into batch: inout Batch) {
        var bytes = raw
        if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        switch validator.validate(line: bytes) {
        case .valid(let event):
            batch.add(event, line: number)
        case .invalid(let issues):
            batch.add(
                QuarantineEntry(
                    quarantinedAt: now.milliseconds(), reasons: issues.map(\.description),
                    bytes: bytes, origin: origin, line: number))
        }
    }
}
