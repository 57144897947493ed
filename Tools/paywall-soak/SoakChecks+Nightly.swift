import Foundation
import PaywallReports
import PaywallSQLite

extension SoakChecks {
    /// The last incremental nightly output equals (a) a nightly run from scratch on a copy of the
    /// database whose rollups and report state are emptied, and (b) a range report over the same window.
    func checkNightly() throws {
        let now = ISO8601DateFormatter().string(from: Date())
        let nightly = soak.folder.appendingPathComponent("nightly").path
        let cli = soak.binary("paywall-analytics")
        let last = try SoakChild(cli, ["report", "--nightly", "--out", nightly, "--db", soak.db, "--now", now]).wait()
        expect(last.status == 0, "final nightly exited \(last.status): \(last.stderr.prefix(300))")
        let copy = soak.folder.appendingPathComponent("recompute.sqlite").path
        let connection = try Connection(path: soak.db)
        _ = try connection.run("VACUUM INTO ?1", [.text(copy)])
        let fresh = try Connection(path: copy)
        try fresh.execute(
            "DELETE FROM report_presentations; DELETE FROM report_event_buckets; DELETE FROM meta WHERE key LIKE 'reports.%'"
        )
        let recomputed = soak.folder.appendingPathComponent("recomputed").path
        let scratch = try SoakChild(cli, ["report", "--nightly", "--out", recomputed, "--db", copy, "--now", now])
            .wait()
        expect(scratch.status == 0, "recompute exited \(scratch.status): \(scratch.stderr.prefix(300))")
        let run =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: nightly + "/run.json")))
            as? [String: Any]
        let from = run?["window_from"] as? String ?? "?"
        let to = run?["window_to"] as? String ?? "?"
        let range = soak.folder.appendingPathComponent("range").path
        let ranged = try SoakChild(cli, ["report", "--from", from, "--to", to, "--out", range, "--db", soak.db]).wait()
        expect(ranged.status == 0, "range report exited \(ranged.status): \(ranged.stderr.prefix(300))")
        let names = try FileManager.default.contentsOfDirectory(atPath: nightly).filter {
            $0.hasSuffix(".csv") || $0 == "report.html"
        }.sorted()
        expect(
            Set(names.filter { $0.hasSuffix(".csv") }) == Set(ReportFile.all.map(\.fileName)),
            "nightly wrote \(names), not every report file (\(ReportFile.all.map(\.fileName)))")
        var rows = 0
        for name in names {
            let incremental = FileManager.default.contents(atPath: "\(nightly)/\(name)")
            rows +=
                incremental.map { String(decoding: $0, as: UTF8.self).components(separatedBy: "\r\n").count - 2 } ?? 0
            expect(
                incremental == FileManager.default.contents(atPath: "\(recomputed)/\(name)"),
                "\(name): incremental nightly differs from the recompute from scratch")
            if name.hasSuffix(".csv") {
                expect(
                    incremental == FileManager.default.contents(atPath: "\(range)/\(name)"),
                    "\(name): nightly differs from the range report \(from)…\(to)")
            }
        }
        figures.append(
            (
                "nightly",
                "\(names.count) files (\(rows) CSV rows, window \(from)…\(to)) identical to a recompute from scratch and to a range report"
            ))
    }
}
