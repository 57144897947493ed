/// How the reports are computed. Both engines implement funnels.md over the same rollup and give
/// byte-identical files (the tests run both against the golden files).
public enum ReportEngine: String, Sendable, CaseIterable {
    /// One sequential scan of `report_presentations` aggregated in memory (the fast default).
    case native
    /// The SQL files of `reports/`, run by SQLite (the readable reference; slower on large stores).
    case sql
}

/// One cell of a computed report row, formatted by the file's column formats.
enum ReportValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null
}

/// Code point order of strings (UTF-8 byte order), not Swift's canonical `String` ordering.
func codePointLess(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
