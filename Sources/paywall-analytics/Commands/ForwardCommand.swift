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

                Redirects are never followed: a 3xx answer is a failure retried later, and the key goes only to --endpoint.

                Exit codes: 0 everything due was delivered (or nothing was due), 64 no usable API key (nothing sent, nothing
                lost), 65 RevenueCat refused impressions in this run (they are in the dead letters; stderr says how many and,
                for 401/403, that the key was refused), 69 RevenueCat could not be reached, redirected or asked to wait
                (retried next run), 74 output could not be written, 75 another forward run holds this database.
                """,
            usage: "forward [--endpoint <url>] [--max-batches <n>] [--sandbox] [--requeue-dead-letters]",
            options: [
                .value(
                    "--endpoint", "url",
                    "RevenueCat's base URL (default \(ForwarderConfiguration.defaultEndpoint.absoluteString)); requests go to <url>/v1/events."
                ),
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
        let store = try StoreAccess.open(
            context.databasePath(arguments), create: false,
            readOnly: .refuse("forward records every delivery in the store"))
        let configuration = ForwarderConfiguration(
            apiKey: resolved.key, endpoint: endpoint, maxBatches: maxBatches,
            sandbox: arguments.has("--sandbox"))
        let forwarder = Forwarder(
            outbox: SQLiteOutbox(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
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
                throw CLIError(
                    .temporaryFailure,
                    "another forward run is using this database; nothing was sent. Retry when it has finished.")
            case .completed(let summary):
                if !quiet { context.stdout.line(describe(summary)) }
                for line in refusalMessages(summary) { context.stderr.line("Error: \(line)") }
                if summary.revenueCatUnavailable {
                    let why = summary.lastFailure.map { " (\($0))" } ?? ""
                    context.stderr.line(
                        "Error: RevenueCat could not take the impressions now\(why); they stay pending and are retried by the next run."
                    )
                }
                return ExitCode(pass)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw StoreAccess.map(error)
        }
    }

    static func describe(_ summary: ForwardingSummary, now: Int64 = Now.system.milliseconds()) -> String {
        var text = summary.description
        switch summary.nextAttemptAt {
        case nil: text += "\nnothing is pending"
        case let next? where next > now: text += "\nnext attempt for pending impressions: \(StatsCommand.iso(next))"
        case _?: text += summary.stop == .batchLimit ? "" : "\npending impressions are due now: run forward again"
        }
        if summary.stop == .batchLimit {
            text += "\nmore impressions are pending: run forward again or raise --max-batches"
        }
        return text
    }

    /// One line per refusing status: how many impressions it dead-lettered and what to do; for 401
    /// and 403, that the key itself was refused.
    static func refusalMessages(_ summary: ForwardingSummary) -> [String] {
        summary.deadLetteredByStatus.sorted { $0.key < $1.key }.map { status, count in
            let impressions = "\(count) impression\(count == 1 ? "" : "s")"
            if status == 401 || status == 403 {
                return "RevenueCat refused the API key (HTTP \(status)): \(impressions) went to the dead letters. "
                    + "Check that REVENUECAT_API_KEY holds this project's public SDK key (appl_…, goog_…, amzn_…, rcb_… "
                    + "or test_…, not a secret sk_ key), then run `\(Tool.name) forward --requeue-dead-letters`."
            }
            return "RevenueCat refused \(impressions) (HTTP \(status)); they went to the dead letters. See why with "
                + "`\(Tool.name) export dead-letters --out -`, fix the cause, then run `\(Tool.name) forward --requeue-dead-letters`."
        }
    }

    static func parseEndpoint(_ text: String?) throws(CLIError) -> URL {
        guard let text else { return ForwarderConfiguration.defaultEndpoint }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw .usage(
                "--endpoint must be an absolute http(s) URL like https://api-paywalls.revenuecat.com, got '\(text)'")
        }
        return url
    }

    /// The most requests one run may make (50 million impressions).
    static let maximumBatches = 1_000_000

    static func parseMaxBatches(_ text: String?) throws(CLIError) -> Int {
        guard let text else { return 10 }
        if !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }), (Int(text) ?? .max) > maximumBatches {
            throw .usage(
                "--max-batches \(text) is over the cap of \(maximumBatches) requests per run; give at most \(maximumBatches)"
            )
        }
        guard let value = Int(text), value >= 1 else {
            throw .usage("--max-batches must be a whole number of at least 1, got '\(text)'")
        }
        return value
    }
}
