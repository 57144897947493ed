import Foundation
import PaywallCore
import PaywallReports
import PaywallSimulation
import PaywallStore
import RevenueCatForwarder

extension DemoRun {
    /// Forwards the demo's impressions when a key is configured; says why not otherwise.
    func forward(store: EventStore) async throws -> String {
        let resolved: APIKeyResolution
        do {
            resolved = try APIKey.resolve(configured: nil, environment: context.environment)
        } catch {
            return "skipped: \(error)"
        }
        let endpoint = try ForwardCommand.parseEndpoint(arguments.value("--endpoint"))
        let forwarder = Forwarder(
            outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
            configuration: ForwarderConfiguration(apiKey: resolved.key, endpoint: endpoint, maxBatches: 1_000),
            now: .system)
        switch try await forwarder.forwardOnce() {
        case .busy: return "skipped: another forward run holds this database"
        // The tour still succeeds when RevenueCat refuses, but says so (and, for 401/403, that the key was refused).
        case .completed(let summary):
            return ([summary.description] + ForwardCommand.refusalMessages(summary)).joined(separator: "\n  ")
        }
    }

    func printSummary(
        _ summary: SimulationSummary, webhooks: WebhookCounts, nightly: NightlyRun, output: String, database: String,
        forwarding: String, seconds: Double
    ) {
        let out = context.stdout
        out.line(
            "Simulated \(summary.customers) customers, \(summary.presentations) paywall presentations, "
                + "\(summary.onTimeEvents + summary.lateEvents) events (\(summary.lateEvents) arrived late).")
        out.line(
            "RevenueCat webhooks: \(webhooks.delivered) delivered for \(summary.purchases.count) purchases; "
                + "\(webhooks.stored) subscription events stored (\(webhooks.sandbox) sandbox or TEST, counted only in data quality), "
                + "\(webhooks.duplicates) duplicates (repeated deliveries, stored once)"
                + (webhooks.refused > 0 ? ", \(webhooks.refused) refused" : "") + ".")
        out.line("The second nightly run recomputed \(nightly.daysRecomputed.count) day(s) for the late events.")
        out.line("")
        for line in DemoSummaryTable.lines(outputFolder: output) { out.line(line) }
        out.line("")
        let offerings = DemoOfferingLines.lines(outputFolder: output)
        for line in offerings { out.line(line) }
        if !offerings.isEmpty { out.line("") }
        out.line("RevenueCat forwarding: \(forwarding)")
        out.line("Database: \(database)")
        out.line("Report:   \(URL(fileURLWithPath: output).appendingPathComponent(HTMLReport.fileName).path)")
        out.line(
            "CSV:      "
                + ReportFile.all.map { URL(fileURLWithPath: output).appendingPathComponent($0.fileName).path }
                .joined(separator: "\n          "))
        out.line(String(format: "Done in %.1f s.", seconds))
    }
}
