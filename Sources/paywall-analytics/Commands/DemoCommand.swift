import Foundation
import PaywallCore
import PaywallReports
import PaywallSimulation
import PaywallStore
import RevenueCatForwarder

/// `demo`: the one-minute tour. Simulates customers meeting paywalls through the real tracker and
/// recorder into a database of its own, runs the nightly report twice (late events arrive in
/// between), and prints a summary with the paths of the CSV and HTML files.
enum DemoCommand {
    static let defaultDatabase = "paywall-demo.sqlite"
    static let defaultOutput = "paywall-report"

    static var spec: CommandSpec {
        CommandSpec(
            name: "demo",
            abstract:
                "Simulate 5,000 customers meeting 6 paywall placements over 30 days, then run the nightly report.",
            discussion: """
                Everything runs through the library's real parts: the presentation tracker on a virtual clock (fixed seed),
                the batching recorder into SQLite, and the nightly report job. Some events arrive late, after a first
                nightly run, so the second run recomputes only the days they belong to. The demo writes to a database
                of its own (\(defaultDatabase), recreated on every run; never your default database) unless --db names
                one, which must not hold events yet. The same seed gives the same numbers on every run.
                If REVENUECAT_API_KEY is set, the demo's impressions are forwarded to RevenueCat (use a Test Store key,
                test_…, so demo data stays out of production charts); otherwise it says forwarding was skipped.
                """,
            usage: "demo [--seed <n>] [--customers <n>] [--days <n>] [--db <path>] [--out <dir>]",
            options: [
                .value("--seed", "n", "Random seed of the simulated population (default 42)."),
                .value("--customers", "n", "Customers who install the app during the period (default 5000)."),
                .value("--days", "n", "Days simulated (default 30)."),
                .value(
                    "--out", "dir", "Folder for the CSV files, report.html and run.json (default ./\(defaultOutput))."),
                .value(
                    "--endpoint", "url",
                    "RevenueCat's base URL when forwarding (default \(ForwarderConfiguration.defaultEndpoint.absoluteString))."
                ),
            ],
            examples: [
                "\(Tool.name) demo",
                "\(Tool.name) demo --seed 7 --out /tmp/demo-report",
                "open paywall-report/report.html      # or xdg-open on Linux",
            ],
            run: { context, arguments in try await DemoRun(context: context, arguments: arguments).run() }
        )
    }
}
