import Foundation
import PaywallCore
import PaywallStore
import RevenueCatForwarder

/// `forward`: drain the RevenueCat outbox once and say what happened.
enum ForwardCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "forward",
            abstract: "Send pending paywall impressions to RevenueCat once and print what happened.",
            discussion: """
            Reads the public SDK API key from REVENUECAT_API_KEY (never from a flag, so it does not show in `ps`).
            Impressions are sent in batches of up to 50, at most --max-batches per run; failures are retried on a
            later run with backoff (Retry-After honoured, at most one hour); refusals (4xx other than 404 and 429)
            go to the dead letters, which --requeue-dead-letters puts back in the queue.

            Exit codes: 0 everything due was handled, 64 no API key (nothing sent, nothing lost), 69 RevenueCat could
            not be reached or asked to wait (retried next run), 75 another forward run holds this database.
            """,
            usage: "forward [--endpoint <url>] [--max-batches <n>] [--sandbox] [--requeue-dead-letters]",
            options: [
                .value("--endpoint", "url", "RevenueCat's base URL (default \(ForwarderConfiguration.defaultEndpoint.absoluteString)); requests go to <url>/v1/events."),
                .value("--max-batches", "n", "Send at most n requests of up to 50 impressions (default 10)."),
                .flag("--sandbox", "Send X-Is-Sandbox: true (always so for a Test Store key, test_…)."),
                .flag("--requeue-dead-letters", "Put every dead letter back in the queue before sending."),
            ],
            examples: [
                "\(Tool.name) forward --max-batches 100",
                "REVENUECAT_API_KEY=appl_… \(Tool.name) forward",
                "\(Tool.name) forward --requeue-dead-letters",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("forward takes no arguments") }
        let endpoint = try parseEndpoint(arguments.value("--endpoint"))
        let maxBatches = try parseMaxBatches(arguments.value("--max-batches"))
        let resolved: APIKeyResolution
        do {
            resolved = try APIKey.resolve(configured: nil, environment: context.environment)
        } catch {
            throw CLIError(.usage, "\(error)")
        }
        if let warning = resolved.warning { context.stderr.line("Warning: \(warning)") }
        let store = try StoreAccess.open(context.databasePath(arguments), create: false)
        let configuration = ForwarderConfiguration(apiKey: resolved.key, endpoint: endpoint, maxBatches: maxBatches,
                                                   sandbox: arguments.has("--sandbox"))
        let forwarder = Forwarder(outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
                                  configuration: configuration, now: .system)
        let quiet = arguments.has("--quiet")
        do {
            if arguments.has("--requeue-dead-letters") {
                let requeued = try forwarder.requeueDeadLetters()
                if !quiet { context.stdout.line("requeued \(requeued) dead letter\(requeued == 1 ? "" : "s")") }
            }
            let pass = try await forwarder.forwardOnce()
            switch pass {
            case .busy:
                throw CLIError(.temporaryFailure, "another forward run is using this database; nothing was sent. Retry when it has finished.")
            case .completed(let summary):
                if !quiet { context.stdout.line(describe(summary)) }
                if summary.revenueCatUnavailable {
                    context.stderr.line("Error: RevenueCat could not take the impressions now; they stay pending and are retried by the next run.")
                }
                return ExitCode(rawValue: pass.exitStatus) ?? .internalError
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw StoreAccess.map(error)
        }
    }

    static func describe(_ summary: ForwardingSummary) -> String {
        var text = summary.description
        if let next = summary.nextAttemptAt { text += "\nnext attempt for pending impressions: \(StatsCommand.iso(next))" }
        if summary.stop == .batchLimit { text += "\nmore impressions are pending: run forward again or raise --max-batches" }
        return text
    }

    static func parseEndpoint(_ text: String?) throws(CLIError) -> URL {
        guard let text else { return ForwarderConfiguration.defaultEndpoint }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil else {
            throw .usage("--endpoint must be an absolute http(s) URL like https://api-paywalls.revenuecat.com, got '\(text)'")
        }
        return url
    }

    static func parseMaxBatches(_ text: String?) throws(CLIError) -> Int {
        guard let text else { return 10 }
        guard let value = Int(text), value >= 1 else { throw .usage("--max-batches must be a whole number of at least 1, got '\(text)'") }
        return value
    }
}
