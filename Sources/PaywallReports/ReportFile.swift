import Foundation
import PaywallSQLite

/// One CSV file of funnels.md: its name, the SQL that computes it and how each column is formatted.
public struct ReportFile: Sendable, Hashable {
    /// How a column's values are written.
    enum Format: Sendable, Hashable {
        /// Text (formula-guarded, quoted as needed).
        case text
        /// A plain integer.
        case count
        /// A rate or share: 4 decimal places, empty when `NULL` (denominator 0).
        case rate
        /// Seconds: 3 decimal places, empty when `NULL`.
        case seconds
        /// A number already formatted exactly (money), written as it is; empty when `NULL`.
        case decimal
    }

    /// The file name, e.g. `encounter_funnel.csv`.
    public let fileName: String
    /// The header, in funnels.md order.
    public let columns: [String]
    let sql: String
    let formats: [Format]

    init(_ name: String, sql: String, _ columns: [(String, Format)]) {
        fileName = name + ".csv"
        self.sql = sql
        self.columns = columns.map(\.0)
        formats = columns.map(\.1)
    }

    /// Every report, in the order they are written.
    public static let all: [ReportFile] = [
        encounterFunnel, conversionFunnel, cohortConversion, placementSummary,
        productMix, offeringComparison, segments, dataQuality, revenue,
    ]

    /// `encounter_funnel.csv`.
    public static let encounterFunnel = ReportFile(
        "encounter_funnel", sql: ReportQueries.encounterFunnel,
        [
            ("date", .text), ("placement", .text), ("presentations", .count), ("impressions", .count),
            ("dwell_bounces", .count), ("unique_viewers", .count), ("impression_rate", .rate),
        ])
    /// `conversion_funnel.csv`.
    public static let conversionFunnel = ReportFile(
        "conversion_funnel", sql: ReportQueries.conversionFunnel,
        [
            ("date", .text), ("placement", .text), ("impressions", .count), ("plan_selected", .count),
            ("purchase_started", .count), ("purchased", .count), ("restored", .count),
            ("dismissed_close_button", .count), ("dismissed_continue_free", .count), ("unclosed", .count),
            ("bounces", .count), ("purchase_cancellations", .count), ("conversion_rate", .rate),
            ("open_s_p50", .seconds), ("open_s_p90", .seconds), ("dismissed_gesture", .count), ("abandoned", .count),
        ])
    /// `cohort_conversion.csv`.
    public static let cohortConversion = ReportFile(
        "cohort_conversion", sql: ReportQueries.cohortConversion,
        [
            ("cohort_date", .text), ("placement", .text), ("customers", .count), ("converted_3d", .count),
            ("conversion_rate_3d", .rate), ("window_complete", .text),
        ])
    /// `placement_summary.csv`.
    public static let placementSummary = ReportFile(
        "placement_summary", sql: ReportQueries.placementSummary,
        [
            ("placement", .text), ("presentations", .count), ("impressions", .count), ("unique_viewers", .count),
            ("purchased", .count), ("restored", .count), ("conversion_rate", .rate), ("open_s_p50", .seconds),
            ("open_s_p90", .seconds),
        ])
    /// `product_mix.csv`.
    public static let productMix = ReportFile(
        "product_mix", sql: ReportQueries.productMix,
        [
            ("placement", .text), ("product", .text), ("purchases", .count), ("share", .rate),
        ])
    /// `offering_comparison.csv`.
    public static let offeringComparison = ReportFile(
        "offering_comparison", sql: ReportQueries.offeringComparison,
        [
            ("placement", .text), ("offering", .text), ("customers", .count), ("impressions", .count),
            ("converted", .count), ("conversion_rate", .rate), ("ci_low", .rate), ("ci_high", .rate),
            ("is_control", .text), ("lift", .rate), ("p_value", .rate),
            ("paid_starts", .count), ("trial_starts", .count), ("revenue_usd", .decimal),
            ("revenue_per_customer", .decimal), ("rpc_ci_low", .rate), ("rpc_ci_high", .rate),
            ("revenue_p_value", .rate), ("diff", .rate), ("seq_ci_low", .rate), ("seq_ci_high", .rate),
            ("seq_p_value", .rate), ("srm_p_value", .rate),
        ])
    /// The offering comparison's columns its SQL computes (the rest come from the subscription side).
    static let offeringSQLColumns = 11
    /// `segments.csv`: the placement summary per platform and app version of the presentations'
    /// first events, with the impression rate and its difference to the placement's.
    public static let segments = ReportFile(
        "segments", sql: ReportQueries.segments,
        [
            ("placement", .text), ("platform", .text), ("app_version", .text), ("presentations", .count),
            ("impressions", .count), ("unique_viewers", .count), ("purchased", .count), ("restored", .count),
            ("conversion_rate", .rate), ("open_s_p50", .seconds), ("open_s_p90", .seconds),
            ("impression_rate", .rate), ("impression_rate_vs_placement", .rate),
        ])
    /// `data_quality.csv`.
    public static let dataQuality = ReportFile(
        "data_quality", sql: ReportQueries.dataQuality,
        [
            ("date", .text), ("events_stored", .count), ("quarantined", .count), ("dropped", .count),
            ("suppressed", .count), ("impressions_stored", .count), ("impressions_delivered", .count),
            ("impressions_pending", .count), ("impressions_dead_lettered", .count),
            ("impressions_forwarded_by_device", .count),
            ("subscription_events", .count), ("subscription_events_unattributed", .count),
            ("subscription_events_sandbox", .count),
        ])
    /// Data quality's columns its SQL computes (the rest come from the subscription side).
    static let dataQualitySQLColumns = 10
    /// `revenue.csv` (computed in Swift for both engines from the attribution and the conversion funnel).
    public static let revenue = ReportFile(
        "revenue", sql: "",
        [
            ("date", .text), ("placement", .text), ("impressions", .count), ("paid_starts", .count),
            ("trial_starts", .count), ("trial_conversions", .count), ("trials_pending", .count),
            ("trial_conversion_rate", .rate), ("refunds", .count), ("revenue_usd", .decimal),
            ("proceeds_usd", .decimal), ("revenue_per_impression", .decimal),
        ])

    /// Runs the SQL with `parameters` and streams the rows into `writer`, header first; returns the rows.
    func write(
        _ db: Database, parameters: [String: SQLValue], to writer: inout CSVWriter,
        collecting table: inout [[String]]
    ) throws -> Int {
        try writer.writeRow(columns.map { .text($0) })
        var rows = 0
        try db.forEachRow(sql, NamedParameters.values(for: sql, parameters)) { row in
            let cells = formats.indices.map { Self.cell(row, $0, formats[$0]) }
            try writer.writeRow(cells)
            table.append(cells.map(\.raw))
            rows += 1
            return true
        }
        return rows
    }

    /// Runs the SQL with `parameters` and returns its rows as values.
    func values(_ db: Database, parameters: [String: SQLValue]) throws -> [[ReportValue]] {
        try Self.values(db, sql: sql, parameters: parameters)
    }

    /// Runs `sql` with `parameters` (those it names) and returns its rows as values.
    static func values(_ db: Database, sql: String, parameters: [String: SQLValue]) throws -> [[ReportValue]] {
        var rows: [[ReportValue]] = []
        try db.forEachRow(sql, NamedParameters.values(for: sql, parameters)) { row in
            rows.append(
                (0..<row.count).map { index in
                    switch row.value(at: index) {
                    case .integer(let value): return .integer(value)
                    case .real(let value): return .real(value)
                    case .text(let value): return .text(value)
                    case .blob(let value): return .text(String(decoding: value, as: UTF8.self))
                    case .null: return .null
                    }
                })
            return true
        }
        return rows
    }

    /// Writes computed rows (the native engine), header first; returns the rows.
    func write(rows: [[ReportValue]], to writer: inout CSVWriter, collecting table: inout [[String]]) throws -> Int {
        try writer.writeRow(columns.map { .text($0) })
        for row in rows {
            let cells = formats.indices.map { Self.cell(row[$0], formats[$0]) }
            try writer.writeRow(cells)
            table.append(cells.map(\.raw))
        }
        return rows.count
    }

    static func cell(_ value: ReportValue, _ format: Format) -> CSVWriter.Cell {
        switch (value, format) {
        case (.null, _): return .empty
        case (.text(let text), .decimal): return .number(text)
        case (.text(let text), _): return .text(text)
        case (.integer(let value), .rate): return .number(ReportFormat.rate(Double(value)))
        case (.integer(let value), .seconds): return .number(ReportFormat.seconds(Double(value)))
        case (.integer(let value), _): return .number(String(value))
        case (.real(let value), .seconds): return .number(ReportFormat.seconds(value))
        case (.real(let value), _): return .number(ReportFormat.rate(value))
        }
    }

    static func cell(_ row: Row, _ index: Int, _ format: Format) -> CSVWriter.Cell {
        if row.isNull(at: index) { return .empty }
        switch format {
        case .text: return .text(row.string(at: index) ?? "")
        case .count: return .number(String(row.int64(at: index)))
        case .rate: return .number(ReportFormat.rate(row.double(at: index) ?? 0))
        case .seconds: return .number(ReportFormat.seconds(row.double(at: index) ?? 0))
        case .decimal: return .number(row.string(at: index) ?? "")
        }
    }
}

/// Number formats of funnels.md "Formats".
public enum ReportFormat {
    /// A rate or share rounded to 4 decimal places: `0.0432`.
    public static func rate(_ value: Double) -> String { FixedPoint.string(value, decimals: 4) }
    /// Seconds with 3 decimal places: `12.500`.
    public static func seconds(_ value: Double) -> String { FixedPoint.string(value, decimals: 3) }
}
