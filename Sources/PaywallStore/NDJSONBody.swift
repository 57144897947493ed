import Foundation
import PaywallCore

/// Validates an NDJSON body held in memory (a request body, say) with exactly the rules of
/// ``Importer/importNDJSON(path:progress:)``: the same catalog validator and line handling (blank
/// lines skipped, a trailing `\r` ignored, a line over ``ImportOptions/maxLineBytes`` quarantined
/// with its length and first bytes), so a line is stored, or refused for the same reasons, whether
/// it arrives by `import` or by any other writer.
///
/// ```swift
/// let body = NDJSONBody(validator: EventValidator(), options: ImportOptions(), now: .system)
/// let lines = body.validate(bytes, origin: "upload/ios-app")
/// // lines.events are valid, lines.quarantine hold the refused lines with their reasons
/// ```
public struct NDJSONBody: Sendable {
    /// What a body holds once validated, in input order.
    public struct Validated: Sendable {
        /// The valid events.
        public var events: [EventRecord]
        /// Each valid event's 1-based line number, in the order of ``events``.
        public var eventLines: [Int] = []
        /// The refused lines, each with its 1-based line number and reasons.
        public var quarantine: [QuarantineEntry]
    }

    private let pipeline: NDJSONPipeline

    /// Creates a validator; `options` gives the line limit, `now` the quarantine times.
    public init(validator: EventValidator = EventValidator(), options: ImportOptions = ImportOptions(), now: Now) {
        pipeline = NDJSONPipeline(validator: validator, options: options, now: now, origin: "")
    }

    /// Splits `bytes` into lines and validates each one; `origin` is recorded with quarantined lines.
    public func validate(_ bytes: UnsafeRawBufferPointer, origin: String) -> Validated {
        let pipeline = NDJSONPipeline(
            validator: self.pipeline.validator, options: self.pipeline.options,
            now: self.pipeline.now, origin: origin)
        var batch = Batch(capacity: 128)
        var number = 0
        // A UTF-8 byte-order mark at the very start of the body is skipped, as import's LineReader
        // skips it at the start of a file (anywhere else it is refused with its reason).
        var start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let end = rest.firstIndex(of: 0x0A).map { start + $0 } ?? bytes.count
            number += 1
            // The limit and a quarantined line's identity count the content without its LF or CRLF,
            // as import's LineReader does.
            var contentEnd = end
            if contentEnd > start, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let length = contentEnd - start
            if length > pipeline.options.maxLineBytes {
                let prefix = Array(bytes[start..<(start + min(length, LineReader.oversizedPrefix))])
                let digest = SHA256.digest(UnsafeRawBufferPointer(rebasing: bytes[start..<contentEnd]))
                batch = pipeline.finish(batch, oversized: [(prefix, length, digest, number)])
            } else {
                pipeline.validateLine(
                    UnsafeRawBufferPointer(rebasing: bytes[start..<end]), number: number, into: &batch)
            }
            start = end + 1
        }
        return Validated(events: batch.events, eventLines: batch.lines, quarantine: batch.quarantine)
    }
}
