extension HTMLReport {
    /// The fewest presentations a segment needs before the page calls its instrumentation
    /// possibly broken (fewer is noise).
    static let brokenMinimumPresentations = 30
    /// How far below its placement's impression rate a segment's must be (`impression_rate_vs_placement`
    /// below this) to be listed.
    static let brokenRateGap = -0.2

    /// The segments whose instrumentation looks broken, as funnels.md defines it: at least
    /// ``brokenMinimumPresentations`` presentations and either an impression rate more than 0.2
    /// below the placement's (`impression_rate_vs_placement` < −0.2, as written in the CSV) or no
    /// impression at all. Rows of `segments` in its order.
    static func brokenSegments(_ table: ReportTable?) -> [[String: String]] {
        guard let table else { return [] }
        return table.rows.map { Dictionary(uniqueKeysWithValues: zip(table.columns, $0)) }.filter { row in
            guard let presentations = Int(row["presentations"] ?? ""), presentations >= brokenMinimumPresentations
            else { return false }
            if row["impressions"] == "0" { return true }
            return (Double(row["impression_rate_vs_placement"] ?? "") ?? 0) < brokenRateGap
        }
    }

    /// The segments section: the "Possibly broken instrumentation" list, then the whole table.
    static func segmentsSection(_ segments: ReportTable?) -> String {
        var out = "<section><h2>Segments by platform and app version</h2>"
        out +=
            "<p class=\"note\">Each placement split by the platform and app version of each presentation's first event (empty: the event did not say).</p>"
        out += "<h3>Possibly broken instrumentation</h3>"
        let broken = brokenSegments(segments)
        if broken.isEmpty {
            out +=
                "<p class=\"empty\">None: no segment of 30 presentations or more has no impression or an impression rate more than 0.2 below its placement's.</p>"
        } else {
            out +=
                "<p class=\"note\">Segments of 30 presentations or more with no impression, or an impression rate more than 0.2 below their placement's: the paywall is shown but the impression may not be reported on that platform or app version.</p><ul class=\"broken\">"
            for row in broken {
                func value(_ key: String) -> String { row[key] ?? "" }
                func named(_ key: String) -> String {
                    value(key).isEmpty ? "(none)" : HTMLEscaping.data(value(key))
                }
                out +=
                    "<li>\(HTMLEscaping.data(value("placement"))) · platform \(named("platform")) · app version \(named("app_version")): "
                    + "\(HTMLEscaping.escape(value("impressions"))) impressions of \(HTMLEscaping.escape(value("presentations"))) presentations "
                    + "(rate \(HTMLEscaping.escape(value("impression_rate"))), \(HTMLEscaping.escape(value("impression_rate_vs_placement"))) against the placement)</li>"
            }
            out += "</ul>"
        }
        return out + table(segments) + "</section>"
    }
}
