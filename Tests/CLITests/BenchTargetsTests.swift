import Foundation
import PaywallTestSupport
import Testing

/// `Tools/paywall-bench/targets.json`, the benchmark targets as data: every entry names a
/// benchmark `paywall-bench all` runs, one bound, and a measure its benchmark prints (so a renamed
/// row cannot silently drop a target; `paywall-bench all --check` also reports it "not measured").
struct BenchTargetsTests {
    static let bench = Golden.packageRoot(from: #filePath).appendingPathComponent("Tools/paywall-bench")

    @Test func everyTargetNamesABenchmarkABoundAndAMeasureItsBenchmarkPrints() throws {
        let data = try Data(contentsOf: Self.bench.appendingPathComponent("targets.json"))
        let targets = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(targets.count >= 13)
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.bench.path)
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: Self.bench.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        for target in targets {
            let benchmark = try #require(target["benchmark"] as? String)
            let measure = try #require(target["measure"] as? String)
            #expect(sources.contains("\"\(benchmark)\""), "\(benchmark) is not a benchmark of paywall-bench")
            let bounds = ["atLeast", "atMost", "below"].filter { target[$0] is NSNumber }
            #expect(bounds.count == 1, "\(measure): exactly one of atLeast, atMost, below")
            let label = measure.replacingOccurrences(of: "(memory outbox)", with: "(\\(kind) outbox)")
                .replacingOccurrences(of: "(sqlite outbox)", with: "(\\(kind) outbox)")
            #expect(sources.contains("\"\(label)\""), "no benchmark prints a row labelled \(measure)")
        }
    }
}
