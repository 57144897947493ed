import Foundation
import PaywallCore
import PaywallStore
import PaywallSubscriptions

/// `stats`: what the events database holds.
enum StatsCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "stats",
            abstract:
                "Show counts per event name, the date range, the RevenueCat outbox, quarantine, dead letters, drops and subscription events.",
            usage: "stats",
            examples: ["\(Tool.name) stats", "\(Tool.name) stats --db /var/lib/paywalls/events.sqlite"],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("stats takes no arguments") }
        let path = context.databasePath(arguments)
        let store = try StoreAccess.open(path, create: false, readOnly: .read)
        let stats: StoreStats
        let subscriptions: SubscriptionStats?
        do {
            stats = try store.stats()
            subscriptions = try SubscriptionStats.read(store.connection)
        } catch { throw StoreAccess.map(error) }
        var out = render(stats, path: path)
        if let subscriptions, subscriptions.events > 0 {
            out +=
                "Subscription events (RevenueCat webhooks): \(subscriptions.events) stored, \(subscriptions.sandbox) of them "
                + "sandbox or TEST; \(subscriptions.customerKeys) customer keys\n"
        }
        context.stdout.write(out)
        return .success
    }

    static func render(_ stats: StoreStats, path: String) -> String {
        var out = "Database: \(path)\n"
        let range =
            stats.firstOccurredAt.map { first in " from \(iso(first)) to \(iso(stats.lastOccurredAt ?? first))" } ?? ""
        out += "Events: \(stats.totalEvents)\(range)\n"
        for name in EventName.allCases.map(\.rawValue)
            + stats.eventsByName.keys.filter({ EventName(rawValue: $0) == nil }).sorted()
        {
            out +=
                "  " + name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(stats.eventsByName[name] ?? 0)
                + "\n"
        }
        // Impressions the installs forwarded themselves are in the deliveries too, but this store never sent
        // them: they are counted apart, never as delivered by it.
        let deliveredHere = max(0, stats.outboxDelivered - stats.outboxForwardedByDevice)
        out +=
            "RevenueCat outbox: \(stats.outboxPending) pending, \(deliveredHere) delivered, \(stats.outboxDead) dead-lettered\n"
        if stats.outboxForwardedByDevice > 0 {
            out +=
                "  not in the outbox, forwarded by the app installs themselves: \(stats.outboxForwardedByDevice)\n"
        }
        if stats.outboxHandedToCollector > 0 {
            out +=
                "  of the delivered, handed to the collector, which forwards them: \(stats.outboxHandedToCollector)\n"
        }
        if let cursor = stats.uploadedThroughSeq {
            out +=
                "Uploaded to the collector: through seq \(cursor), \(stats.uploadPending) event\(stats.uploadPending == 1 ? "" : "s") pending upload\n"
        }
        if stats.deletedByRetention > 0 {
            out += "Deleted by device retention (uploaded and done): \(stats.deletedByRetention)\n"
        }
        out +=
            "Dead letters: \(stats.deadLetters) open"
            + (stats.deadLettersRequeued > 0 ? " (history: \(stats.deadLettersRequeued) requeued earlier)\n" : "\n")
        out += "Quarantined: \(stats.quarantined)\n"
        out += "Dropped at the recorder's buffer bound: \(stats.droppedAtBound)\n"
        if stats.suppressedCustomers > 0 || stats.suppressed > 0 {
            out +=
                "Suppressed (events of forgotten customers, not stored): \(stats.suppressed); "
                + "customers on the suppression list: \(stats.suppressedCustomers)\n"
        }
        return out
    }

    static func iso(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
