import Foundation
import PaywallCore
import PaywallOutput
import PaywallSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams store tables and the funnels as CSV (RFC 4180, UTF-8, formula guard unless raw), and the
/// events as NDJSON too (``exportEventsNDJSON(filter:toPath:)``), in constant memory: rows go from
/// SQLite's cursor through a 64 KiB buffer to the file (the events from two cursors on one
/// snapshot, ``ExportSplitRead``).
///
/// ```swift
/// let rows = try Exporter(connection: connection).export(.events, filter: ExportFilter(placements: ["onboarding"]),
///                                                        toPath: "events.csv")
/// ```
public struct Exporter: Sendable {
    /// The store.
    public let connection: Connection

    /// Rowids per range when the events export is read by two threads (``ExportSplitRead``);
    /// `nil` reads it on one. Tests set small ranges.
    var splitRangeRowids: Int64? = ExportSplitRead.defaultRangeRowids

    /// Creates an exporter on an open store.
    public init(connection: Connection) { self.connection = connection }

    /// Writes the export to `path` (`-` for standard output) through ``OutputFile``: a regular file is
    /// written to a temporary name next to it and renamed when complete (a failure leaves any previous
    /// file intact; an existing file keeps its mode), a character device or FIFO is written straight
    /// to, a symbolic link is written through to its target and stays a link.
    ///
    /// - Parameter raw: turn the spreadsheet formula guard off (for machine consumers).
    /// - Returns: the data rows written.
    /// - Throws: ``ReportError``.
    @discardableResult
    public func export(
        _ kind: ExportKind, filter: ExportFilter = ExportFilter(), raw: Bool = false,
        toPath path: String
    ) throws -> Int64 {
        if path == "-" {
            return try export(kind, filter: filter, raw: raw, descriptor: STDOUT_FILENO, path: "standard output")
        }
        let file: OutputFile
        do { file = try OutputFile(path: path) } catch let error as OutputFileError { throw ReportError(error) }
        do {
            let rows = try export(kind, filter: filter, raw: raw, descriptor: file.descriptor, path: path)
            do { try file.commit() } catch let error as OutputFileError { throw ReportError(error) }
            return rows
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes the export to an open descriptor (not closed); returns the data rows written.
    public func export(_ kind: ExportKind, filter: ExportFilter, raw: Bool, descriptor: Int32, path: String) throws
        -> Int64
    {
        var writer = CSVWriter(descriptor: descriptor, path: path, formulaGuard: !raw)
        let rows: Int64
        switch kind {
        case .funnels: rows = try exportFunnels(filter, &writer)
        default: rows = try exportTable(kind, filter, &writer)
        }
        try writer.flush()
        return rows
    }

    /// The time bounds `[start, end)` of the filter's days, or open ends.
    func bounds(_ filter: ExportFilter) throws -> (Int64, Int64) {
        let calendar = try DayCalendar(timeZone: filter.timezone)
        if let from = filter.from, let to = filter.to, from > to {
            throw ReportError.invalidRange(from: from.description, to: to.description)
        }
        return (
            filter.from.map { calendar.startMs(of: $0) } ?? .min,
            filter.to.map { calendar.startMs(of: $0.next) } ?? .max
        )
    }
}
