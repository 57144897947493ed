import Foundation
import PaywallTestSupport
import Testing

/// One device with its clock set far ahead cannot mark young cohorts `window_complete`: the newest
/// event the flag reads is capped at each event's arrival (`recorded_at`) and at the time of the
/// run. The built binary: `import`, then `report --nightly` and `report` over a range.
@Suite(.serialized)
struct SkewedClockCohortTests {
    let cli = try! CommandRunner()
    /// 2025-12-01T00:00:00Z, the run's `--now`.
    static let now = "2025-12-01T00:00:00Z"

    /// `window_complete` per cohort date in `cohort_conversion.csv` under `folder`.
    func flags(_ folder: String) throws -> [String: String] {
        let text = try String(contentsOfFile: folder + "/cohort_conversion.csv", encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\r\n").dropFirst() {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            out[String(cells[0])] = String(cells[cells.count - 1])
        }
        return out
    }

    @Test func aDeviceClockIn2099CompletesNoYoungCohort() async throws {
        let scratch = TemporaryDirectory(prefix: "skewed-clock")
        let db = scratch.path("events.sqlite")
        // Cohorts on 2025-11-20 (its window ended long before the newest event), 11-29 and 11-30
        let lines =
            ForgetCommandTests.presentation(1, user: "early", at: 1_763_640_000_000)  // 2025-11-20T12:00Z
            + ForgetCommandTests.presentation(2, user: "recent", at: 1_764_417_600_000)  // 2025-11-29T12:00Z
            + ForgetCommandTests.presentation(3, user: "newest", at: 1_764_504_000_000)  // 2025-11-30T12:00Z
        let input = try scratch.write("in.ndjson", lines.joined(separator: "\n") + "\n")
        #expect(try await cli.run(["import", input, "--db", db]).status == 0)
        let before = scratch.path("before")
        let first = try await cli.run(["report", "--nightly", "--out", before, "--now", Self.now, "--db", db])
        #expect(first.status == 0, "\(first.stderr)")
        let expected = ["2025-11-20": "true", "2025-11-29": "false", "2025-11-30": "false"]
        #expect(try flags(before) == expected)
        // When one install with its clock in 2099 uploads an impression
        let skewed = try scratch.write(
            "skewed.ndjson",
            ForgetCommandTests.presentation(4, user: "skewed-clock", at: 4_102_444_000_000).joined(separator: "\n")
                + "\n")
        #expect(try await cli.run(["import", skewed, "--db", db]).status == 0)
        // Then the young cohorts stay incomplete, in the nightly and in a range report alike
        let after = scratch.path("after")
        let second = try await cli.run(["report", "--nightly", "--out", after, "--now", Self.now, "--db", db])
        #expect(second.status == 0, "\(second.stderr)")
        let nightly = try flags(after)
        for (date, flag) in expected { #expect(nightly[date] == flag, "\(date): \(nightly)") }
        let range = scratch.path("range")
        let third = try await cli.run([
            "report", "--from", "2025-11-01", "--to", "2025-11-30", "--out", range, "--now", Self.now, "--db", db,
        ])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try flags(range) == expected)
        // And without --now (the clock is past every real arrival) the cap is the arrival: the
        // young cohorts' windows have really elapsed by now, so they are complete, as they should be
        let today = scratch.path("today")
        #expect(try await cli.run(["report", "--nightly", "--out", today, "--db", db]).status == 0)
        #expect(try flags(today)["2025-11-30"] == "true")
    }
}
