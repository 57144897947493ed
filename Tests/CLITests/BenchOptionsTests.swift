import Foundation
import PaywallTestSupport
import Testing

/// `paywall-bench` checks its options before it runs anything: a typo or a malformed number is an
/// error naming it (exit 64, nothing measured), never a run of the default size; `--help` prints
/// the usage. Every case here would start a benchmark of minutes if the check let it through.
struct BenchOptionsTests {
    let bench = try! CommandRunner(product: "paywall-bench")

    @Test(arguments: [
        (["report", "--event", "1000"], "report has no option --event; its options are --events, --keep"),
        (["report", "--events", "1e6"], "--events 1e6: expected a whole number of at least 30, digits only"),
        (["report", "--events"], "--events needs a value"),
        (["report", "--events", "--keep"], "--events needs a value"),
        (["report", "nightly", "--keep"], "report nightly has no option --keep; its options are --events, --prepared"),
        (["report", "stray"], "report takes no word stray"),
        (["import", "--ids", "randm"], "--ids randm: expected one of ordered, random"),
        (["import", "--pick", "1,99"], "--pick 1,99: expected numbers of variants from 1 to"),
        (["import", "--events", "5", "--events", "6"], "--events is given twice; give it once"),
        (["collector", "--connections", "0"], "--connections 0: expected a whole number of at least 1"),
        (["forwarder", "--outbox", "disk"], "--outbox disk: expected one of memory, sqlite, both"),
        (["reprot"], "reprot is not a benchmark; the benchmarks are validator, recorder, import"),
    ])
    func aWrongOptionIsAnErrorNamingItAndNothingRuns(arguments: [String], message: String) async throws {
        let result = try await bench.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("paywall-bench --help"))
        // Nothing ran: a benchmark's first line ("generated …") would come before the error, and a
        // table would be on standard output.
        #expect(result.stdout.isEmpty)
    }

    @Test func helpPrintsTheUsageOfEveryBenchmarkAndExitsZero() async throws {
        for flag in ["--help", "-h"] {
            let result = try await bench.run(["report", flag])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty)
            #expect(result.stdout.hasPrefix("usage: paywall-bench <benchmark>"))
            for name in ["forwarder", "recorder", "import", "validator", "report", "collector", "upload", "webhook"] {
                #expect(result.stdout.contains("\n  \(name) "), "the usage lists \(name)")
            }
            #expect(result.stdout.contains("report subscriptions [--events N]"))
        }
    }
}
