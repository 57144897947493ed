import Foundation
import PaywallCore
import PaywallReports
import PaywallTestSupport
import Testing

/// Reads the CSV files back with Python's csv module and pandas (a real consumer) and compares
/// every value with what funnels.md says it should be.
struct PythonReadBackTests {
    /// The golden CSV's cells as a consumer must read them, decoded independently of our writer:
    /// quoted fields unquoted, `""` as `"`, the guard's `'` kept as data.
    static let expected: [String: [[String]]] = [
        "encounter_funnel.csv": [
            ["2026-11-01", "'+plus", "1", "0", "1", "0", "0.0000"],
            ["2026-11-01", "cohort", "2", "2", "0", "2", "1.0000"],
            ["2026-11-01", "onboarding", "6", "5", "1", "4", "0.8333"],
            ["2026-11-01", "tie-winner", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "'-minus", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "<script>alert(1)</script>", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "'=SUM(A1)", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "'@at", "1", "0", "1", "0", "0.0000"],
            ["2026-11-02", "a,b \"c\"", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "cohort", "1", "1", "0", "1", "1.0000"],
            ["2026-11-02", "Ünïcødé 🚀", "1", "1", "0", "1", "1.0000"],
            ["2026-11-04", "other", "2", "0", "2", "0", "0.0000"],
            ["2026-11-05", "late", "1", "1", "0", "1", "1.0000"],
        ],
        "product_mix.csv": [
            ["onboarding", "pro.month", "1", "0.5000"],
            ["onboarding", "pro.year", "1", "0.5000"],
            ["Ünïcødé 🚀", "pro.year", "1", "1.0000"],
        ],
        "offering_comparison.csv": [
            [
                "'-minus", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0", "0.00", "0.0000",
                "", "", "", "", "", "", "", "",
            ],
            [
                "<script>alert(1)</script>", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0",
                "0.00", "0.0000", "", "", "", "", "", "", "", "",
            ],
            [
                "'=SUM(A1)", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0", "0.00",
                "0.0000", "", "", "", "", "", "", "", "",
            ],
            [
                "a,b \"c\"", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0", "0.00",
                "0.0000", "", "", "", "", "", "", "", "",
            ],
            [
                "cohort", "", "2", "3", "0", "0.0000", "0.0000", "0.6576", "true", "", "", "0", "0", "0.00", "0.0000",
                "0.0000", "0.0000", "", "", "", "", "", "",
            ],
            [
                "late", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0", "0.00", "0.0000", "",
                "", "", "", "", "", "", "",
            ],
            [
                "onboarding", "", "2", "2", "1", "0.5000", "0.0945", "0.9055", "true", "", "", "0", "0", "0.00",
                "0.0000", "0.0000", "0.0000", "", "", "", "", "", "0.5637",
            ],
            [
                "onboarding", "annual", "2", "2", "1", "0.5000", "0.0945", "0.9055", "false", "0.0000", "1.0000", "0",
                "0", "0.00", "0.0000", "0.0000", "0.0000", "", "0.0000", "-12.3100", "12.3100", "1.0000", "0.5637",
            ],
            [
                "onboarding", "monthly", "1", "1", "0", "0.0000", "0.0000", "0.7935", "false", "-1.0000", "0.3865", "0",
                "0", "0.00", "0.0000", "", "", "", "-0.5000", "-6.6905", "5.6905", "0.9903", "0.5637",
            ],
            [
                "tie-winner", "", "1", "1", "0", "0.0000", "0.0000", "0.7935", "true", "", "", "0", "0", "0.00",
                "0.0000", "", "", "", "", "", "", "", "",
            ],
            [
                "Ünïcødé 🚀", "'=promo,\"q\"", "1", "1", "1", "1.0000", "0.2065", "1.0000", "true", "", "", "0", "0",
                "0.00", "0.0000", "", "", "", "", "", "", "", "",
            ],
        ],
        "placement_summary.csv": [
            ["'+plus", "1", "0", "0", "0", "0", "", "", ""],
            ["'-minus", "1", "1", "1", "0", "0", "0.0000", "", ""],
            ["<script>alert(1)</script>", "1", "1", "1", "0", "0", "0.0000", "6.000", "6.000"],
            ["'=SUM(A1)", "1", "1", "1", "0", "0", "0.0000", "1.500", "1.500"],
            ["'@at", "1", "0", "0", "0", "0", "", "", ""],
            ["a,b \"c\"", "1", "1", "1", "0", "0", "0.0000", "", ""],
            ["cohort", "3", "3", "2", "0", "0", "0.0000", "1.000", "1.000"],
            ["late", "1", "1", "1", "0", "0", "0.0000", "", ""],
            ["onboarding", "6", "5", "4", "2", "0", "0.4000", "7.250", "31.000"],
            ["other", "2", "0", "0", "0", "0", "", "", ""],
            ["tie-winner", "1", "1", "1", "0", "1", "0.0000", "2.000", "2.000"],
            ["Ünïcødé 🚀", "1", "1", "1", "1", "0", "1.0000", "4.000", "4.000"],
        ],
        "cohort_conversion.csv": [
            ["2026-11-01", "cohort", "2", "1", "0.5000", "true"],
            ["2026-11-01", "onboarding", "4", "2", "0.5000", "true"],
            ["2026-11-01", "tie-winner", "1", "0", "0.0000", "true"],
            ["2026-11-02", "'-minus", "1", "0", "0.0000", "false"],
            ["2026-11-02", "<script>alert(1)</script>", "1", "0", "0.0000", "false"],
            ["2026-11-02", "'=SUM(A1)", "1", "0", "0.0000", "false"],
            ["2026-11-02", "a,b \"c\"", "1", "0", "0.0000", "false"],
            ["2026-11-02", "Ünïcødé 🚀", "1", "1", "1.0000", "false"],
            ["2026-11-05", "late", "1", "0", "0.0000", "false"],
        ],
    ]

    @Test func pythonCSVAndPandasReadBackEveryValue() throws {
        // Given a report of the fixture
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let reports = FunnelReport(
            connection: try ReportFixture.makeStore(at: folder.path("db")),
            now: .constant(ReportFixture.day5))
        try reports.report(
            from: try ReportDate("2026-11-01"), to: try ReportDate("2026-11-05"), into: folder.path("out"))
        var expectations: [String: Any] = [:]
        for file in ReportFile.all where Self.expected[file.fileName] != nil {
            expectations[file.fileName] = ["columns": file.columns, "rows": Self.expected[file.fileName]!]
        }
        try JSONSerialization.data(withJSONObject: expectations).write(
            to: folder.url.appendingPathComponent("expect.json"))
        // When Python reads the files back
        let (status, output, errors) = try runPython("read_back.py", [folder.path("out"), folder.path("expect.json")])
        // Then csv and pandas see exactly the intended values
        #expect(status == 0, "read_back.py failed (\(Python.installAdvice)):\n\(output)\(errors)")
        // and the offering comparison's rates, intervals, lifts and p-values equal an independent computation
        let check = try runPython("offering_check.py", [folder.path("out/offering_comparison.csv")])
        #expect(check.0 == 0, "offering_check.py:\n\(check.1)\(check.2)")
    }
}
