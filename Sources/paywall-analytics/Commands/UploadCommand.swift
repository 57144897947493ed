import Foundation
import PaywallCore
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

/// `upload`: send this store's events to a collector once and say what happened.
enum UploadCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "upload",
            abstract: "Send this store's events to a collector (`serve`) once and print what happened.",
            discussion: """
                Sends every event not yet acknowledged, in the order it was stored, as gzip NDJSON batches of up to 1,000
                events and 512 KiB; each 2xx advances the upload cursor in the same transaction, so a killed run resends at
                most one batch and the collector's dedupe keeps it once. Reads the write key from \(CollectorKey.environmentVariable)
                (never from a flag, so it does not show in `ps`); make one on the collector with `keys add NAME`.

                --forwarding is required and names the side that sends this store's impressions to RevenueCat: `device` when
                this store forwards them itself (`forward`, or an app's own forwarder), `collector` when the collector does
                (then each uploaded impression leaves this store's outbox, so `forward` here never sends it too).

                A failing collector (Retry-After, 5xx, 429, a network failure) pauses uploading from this database as a
                whole, and every later run respects the pause; 401 and 403 keep every event and wait the longest backoff;
                413 halves the batch. Redirects are never followed. --retry-now lifts that pause before sending (after
                fixing its cause, such as the write key), and a delivered batch lifts it too.

                Exit codes: 0 everything due was uploaded (or nothing was due), 64 no usable write key or bad arguments
                (nothing sent, nothing lost), 69 the collector could not take the events now, refused the key or is paused
                by an earlier failure (retried by a later run), 74 output could not be written, 75 another upload run holds
                this database.
                """,
            usage:
                "upload --endpoint <url> --forwarding device|collector [--max-batches <n>] [--no-gzip] [--retry-now]",
            options: [
                .value(
                    "--endpoint", "url",
                    "The collector's base URL, e.g. https://events.example.com; requests go to <url>/v1/events."),
                .value(
                    "--forwarding", "side",
                    "Who sends this store's impressions to RevenueCat: device (this side) or collector."),
                .value(
                    "--max-batches", "n",
                    "Send at most n requests of up to 1,000 events (default: until nothing is due)."),
                .flag("--no-gzip", "Send the NDJSON uncompressed."),
                .flag(
                    "--retry-now",
                    "Lift the pause an earlier failure left (after fixing its cause, e.g. the key) and send now."),
            ],
            examples: [
                "\(Tool.name) upload --endpoint https://events.example.com --forwarding collector",
                "\(Tool.name) upload --endpoint http://127.0.0.1:8080 --forwarding device --max-batches 10",
                "PAYWALL_COLLECTOR_KEY=pwk_… \(Tool.name) upload --endpoint https://events.example.com --forwarding device",
            ],
            run: run
        )
    }

    /// The most requests one run may make when --max-batches is not given.
    static let unboundedBatches = 100_000_000

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("upload takes no arguments") }
        guard let endpointText = arguments.value("--endpoint") else {
            throw CLIError.usage(
                "upload needs --endpoint URL, the collector's base URL (e.g. https://events.example.com)")
        }
        let endpoint = try parseEndpoint(endpointText)
        let forwarding = try parseForwarding(arguments.value("--forwarding"))
        var maxBatches = unboundedBatches
        if let text = arguments.value("--max-batches") { maxBatches = try ForwardCommand.parseMaxBatches(text) }
        let key: CollectorKey
        do {
            key = try CollectorKey.resolve(configured: nil, environment: context.environment)
        } catch {
            throw CLIError(.usage, "\(error)")
        }
        let store = try StoreAccess.open(
            context.databasePath(arguments), create: false,
            readOnly: .refuse("upload records every acknowledgement in the store"))
        let configuration = UploaderConfiguration(
            endpoint: endpoint, writeKey: key, forwarding: forwarding,
            maxBatches: maxBatches, gzip: !arguments.has("--no-gzip"))
        let queue = SQLiteUploadQueue(store: store)
        if arguments.has("--retry-now") {
            do { try queue.clearPause(of: DeliveryDestinationName.collector) } catch { throw StoreAccess.map(error) }
        }
        let uploader = Uploader(
            queue: queue, transport: URLSessionTransport(timeout: .seconds(30)),
            configuration: configuration, now: .system)
        let pass: DeliveryPass
        do {
            pass = try await uploader.uploadOnce()
        } catch {
            throw StoreAccess.map(error)
        }
        switch pass {
        case .busy:
            throw CLIError(
                .temporaryFailure,
                "another upload run is using this database; nothing was sent. Retry when it has finished.")
        case .completed(let report):
            // A pass that stopped at --max-batches may have sent the last event with its last batch.
            let morePending =
                report.stop != .batchLimit
                || ((try? queue.events(after: try queue.uploadCursor(), limit: 1).isEmpty == false) ?? true)
            if !arguments.has("--quiet") { context.stdout.line(describe(report, morePending: morePending)) }
            if report.unavailable {
                let why = report.lastFailure.map { " (\(TerminalText.escaped($0)))" } ?? ""
                let until =
                    report.pausedUntil.map { "; uploading from this database is paused until \(StatsCommand.iso($0))" }
                    ?? ""
                let retry =
                    report.pausedUntil != nil
                    ? " Once the cause is fixed, `upload --retry-now` sends without waiting for the pause to end." : ""
                context.stderr.line(
                    "Error: the collector could not take the events now\(why)\(until). They stay here and are "
                        + "sent by the next run.\(retry)")
            }
            return ExitCode(pass)
        }
    }

    /// The run's summary; `morePending` false when a pass stopped at `--max-batches` with nothing left.
    static func describe(_ report: DeliveryReport, morePending: Bool = true) -> String {
        var text =
            "uploaded \(report.accepted), duplicates \(report.duplicates), quarantined \(report.quarantined) "
            + "(\(report.requests) request\(report.requests == 1 ? "" : "s"), \(report.bytesSent) bytes sent)"
        if report.suppressed > 0 {
            text +=
                "\nthe collector refused \(report.suppressed) event\(report.suppressed == 1 ? "" : "s") of customers "
                + "forgotten there (`forget --user` on its store); they are not sent again"
        }
        if report.quarantined > 0 {
            text +=
                "\nthe collector quarantined \(report.quarantined) event\(report.quarantined == 1 ? "" : "s") as invalid; "
                + "see them there with `\(Tool.name) export quarantine`"
        }
        switch report.stop {
        case .batchLimit where !morePending: text += "\nnothing is pending"
        case .batchLimit: text += "\nmore events are pending: run upload again or raise --max-batches"
        case .nothingDue: text += "\nnothing is pending"
        default: break
        }
        return text
    }

    static func parseEndpoint(_ text: String) throws(CLIError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw .usage(
                "--endpoint must be an absolute http(s) URL like https://events.example.com, got "
                    + "'\(TerminalText.escaped(text))'")
        }
        if let problem = CollectorWire.endpointProblem(url) {
            throw .usage(
                "--endpoint must be the collector's base URL, like https://events.example.com or "
                    + "https://example.com/collector, but \(problem): '\(TerminalText.escaped(text))'")
        }
        return url
    }

    static func parseForwarding(_ text: String?) throws(CLIError) -> ForwardingParty {
        guard let text else {
            throw .usage(
                "upload needs --forwarding device|collector: say who sends this store's impressions to RevenueCat "
                    + "(device: this side does, with `forward`; collector: the collector does)")
        }
        guard let party = ForwardingParty(rawValue: text) else {
            throw .usage("--forwarding must be device or collector, got '\(text)'")
        }
        return party
    }
}
