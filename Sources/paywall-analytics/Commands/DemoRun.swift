import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallSubscriptions
import RevenueCatForwarder

/// One run of `demo`: parse and validate, simulate and record, report, summarize.
struct DemoRun {
    let context: CommandContext
    let arguments: ParsedArguments
    let quiet: Bool

    init(context: CommandContext, arguments: ParsedArguments) {
        self.context = context
        self.arguments = arguments
        quiet = arguments.has("--quiet")
    }

    func run() async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("demo takes no arguments") }
        let scenario = DemoScenario(
            seed: try number("--seed", default: 42),
            customers: Int(try number("--customers", default: 5_000, range: 1...1_000_000)),
            days: Int(try number("--days", default: 30, range: 1...366)))
        let output = arguments.value("--out") ?? DemoCommand.defaultOutput
        let databasePath = try prepareDatabase()
        let store = try StoreAccess.open(
            databasePath, create: true, readOnly: .refuse("demo writes its events into it"))
        let bar = ProgressBar(context: context, arguments: arguments)
        let started = ContinuousClock.now

        bar.update("simulating \(scenario.customers) customers over \(scenario.days) days", fraction: nil)
        let recorder = Recorder(store: store, policy: FlushPolicy(batchSize: 5_000, capacity: 1_000_000)) {
            diagnostic in
            context.stderr.line("Warning: \(diagnostic)")
        }
        let late = InMemoryEventSink()
        let summary = PopulationSimulator(scenario: scenario).run(onTime: recorder, late: late)
        do { try await recorder.flush() } catch { throw StoreAccess.map(error) }
        bar.update("RevenueCat webhooks for the purchases", fraction: nil)
        let webhooks = try ingestWebhooks(
            SubscriptionSimulator(scenario: scenario).webhooks(for: summary.purchases), store: store)

        let periodEnd = scenario.startMs + Int64(scenario.days) * 86_400_000
        bar.update("nightly report, first run", fraction: nil)
        _ = try nightly(store: store, output: output, now: periodEnd - 3_600_000)
        bar.update("late events arrive; nightly report, second run", fraction: nil)
        for event in late.events { recorder.record(event) }
        do { try await recorder.close() } catch { throw StoreAccess.map(error) }
        let second = try nightly(store: store, output: output, now: periodEnd + 2 * 3_600_000)
        let forwarding = try await forward(store: store)
        bar.finish()

        if !quiet {
            let elapsed = ContinuousClock.now - started
            printSummary(
                summary, webhooks: webhooks, nightly: second, output: output, database: databasePath,
                forwarding: forwarding,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return .success
    }

    /// Ingests the simulated webhooks as the collector would receive them, one transaction per
    /// delivery day (received at that day's last delivery).
    func ingestWebhooks(_ webhooks: [SimulatedWebhook], store: EventStore) throws -> WebhookCounts {
        let subscriptions = SubscriptionEventStore(connection: store.connection)
        var counts = WebhookCounts(delivered: webhooks.count)
        var start = 0
        while start < webhooks.count {
            let day = webhooks[start].deliveredAtMs / 86_400_000
            var end = start
            while end < webhooks.count, webhooks[end].deliveredAtMs / 86_400_000 == day { end += 1 }
            let group = webhooks[start..<end]
            let outcomes: [SubscriptionIngestOutcome]
            do {
                outcomes = try subscriptions.ingest(
                    group.map { Data($0.body.utf8) }, receivedAtMs: group[end - 1].deliveredAtMs)
            } catch { throw StoreAccess.map(error) }
            for (webhook, outcome) in zip(group, outcomes) {
                switch outcome {
                case .stored:
                    counts.stored += 1
                    if case .success(let event) = WebhookExtraction.extract(Array(webhook.body.utf8)), event.isSandbox {
                        counts.sandbox += 1
                    }
                case .duplicate: counts.duplicates += 1
                case .quarantined, .suppressed: counts.refused += 1
                }
            }
            start = end
        }
        return counts
    }

    /// What became of the demo's simulated webhooks.
    struct WebhookCounts {
        var delivered = 0
        var stored = 0
        var sandbox = 0
        var duplicates = 0
        var refused = 0
    }

    /// Runs the nightly job as of `now` (virtual time, so the demo does not depend on today).
    func nightly(store: EventStore, output: String, now: Int64) throws -> NightlyRun {
        do {
            return try FunnelReport(connection: store.connection, now: .constant(now))
                .nightly(into: output, version: ProductVersion.current)
        } catch let error as ReportError {
            throw CLIError(error)
        }
    }

    /// The demo's own database, recreated; or the one `--db` names, which must not hold events.
    func prepareDatabase() throws -> String {
        guard let path = arguments.value("--db") else {
            // Recreated only when it is the demo's own (or not an SQLite file of someone else).
            do { try Schema.migrator.checkIdentity(path: DemoCommand.defaultDatabase) } catch {
                throw StoreAccess.map(error)
            }
            for suffix in ["", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: DemoCommand.defaultDatabase + suffix)
            }
            return DemoCommand.defaultDatabase
        }
        if FileManager.default.fileExists(atPath: path) {
            let existing = try StoreAccess.open(
                path, create: false, readOnly: .refuse("demo writes its events into it"))
            let events: Int
            do { events = try existing.stats().totalEvents } catch { throw StoreAccess.map(error) }
            if events > 0 {
                throw CLIError(
                    .cannotCreateOutput,
                    "\(path) already holds \(events) events; the demo only writes into a new or empty database. Choose another --db path, or leave --db out to use ./\(DemoCommand.defaultDatabase)."
                )
            }
        }
        return path
    }

    func number(_ name: String, default value: UInt64, range: ClosedRange<UInt64> = 0...UInt64.max) throws(CLIError)
        -> UInt64
    {
        guard let text = arguments.value(name) else { return value }
        guard let parsed = UInt64(text), range.contains(parsed) else {
            throw .usage(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return parsed
    }
}
