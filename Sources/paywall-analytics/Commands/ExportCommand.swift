import Foundation
import PaywallCore
import PaywallReports
import PaywallStore

/// `export events|funnels|quarantine|dead-letters`: CSV for other tools, streamed in constant memory.
enum ExportCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "export",
            abstract: "Export events, funnels, quarantine or dead letters as CSV, streamed in constant memory.",
            discussion: """
                WHAT is one of: events, funnels, quarantine, dead-letters. --out - writes to standard output. A file is
                written under a temporary name beside it and renamed when complete, keeping an existing file's mode; a
                character device or FIFO is written to directly; a symbolic link is written through to its target and
                stays a link; a folder, a block device or a link to nothing is refused (73). Text cells starting with = + - @ tab or CR
                get a leading ' so spreadsheets do not run them as formulas; --raw turns that off for machine consumers.
                --user keeps one customer's rows (events, dead letters): an access request. --format ndjson writes
                events as NDJSON lines exactly as `import` reads them.
                """,
            usage:
                "export <what> --out <file> [--from <date>] [--to <date>] [--placement <name>]... [--name <event>]... [--user <id>]... [--format csv|ndjson] [--raw]",
            arguments: [("<what>", "events | funnels | quarantine | dead-letters")],
            options: [
                .value("--out", "file", "Where to write the CSV; - for standard output."),
                .value("--from", "date", "First day, YYYY-MM-DD (inclusive)."),
                .value("--to", "date", "Last day, YYYY-MM-DD (inclusive)."),
                .value("--placement", "name", "Only this placement (repeatable).", repeatable: true),
                .value("--name", "event", "Only this event name (repeatable).", repeatable: true),
                .value("--timezone", "zone", "IANA time zone that defines days (default UTC)."),
                .value(
                    "--user", "id", "Only this customer's rows (events, dead letters; repeatable).", repeatable: true),
                .value("--format", "format", "csv (default) or ndjson (events only, as import reads it)."),
                .flag("--raw", "Turn the spreadsheet formula guard off."),
            ],
            examples: [
                "\(Tool.name) export events --out events.csv --from 2026-11-01 --to 2026-11-28",
                "\(Tool.name) export quarantine --out - | less",
                "\(Tool.name) export events --user app-user-42 --format ndjson --out app-user-42.ndjson",
                "\(Tool.name) export events --raw --name paywall_shown --out - | clickhouse-client --query 'INSERT INTO events FORMAT CSVWithNames'",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.count == 1, let kind = ExportKind(rawValue: arguments.positionals[0]) else {
            let given = arguments.positionals.isEmpty ? "nothing" : "'\(arguments.positionals.joined(separator: " "))'"
            throw CLIError.usage("export needs one of events, funnels, quarantine, dead-letters; got \(given)")
        }
        guard let out = arguments.value("--out"), !out.isEmpty else {
            throw CLIError.usage("export needs --out FILE (or --out - for standard output)")
        }
        let format = try self.format(arguments, kind: kind)
        if arguments.all("--user").contains(where: \.isEmpty) {
            throw CLIError.usage("--user needs a customer's exact app user id; an empty one matches nothing")
        }
        let store = try StoreAccess.open(
            context.databasePath(arguments), create: false,
            readOnly: kind == .funnels ? ReportCommand.rollupsWritten : .read)
        do {
            let filter = ExportFilter(
                from: try arguments.value("--from").map(ReportDate.init),
                to: try arguments.value("--to").map(ReportDate.init),
                placements: arguments.all("--placement"), names: arguments.all("--name"),
                timezone: arguments.value("--timezone") ?? "UTC")
            var filtered = filter
            filtered.users = arguments.all("--user")
            let exporter = Exporter(connection: store.connection)
            let rows =
                format == .ndjson
                ? try exporter.exportEventsNDJSON(filter: filtered, toPath: out)
                : try exporter.export(kind, filter: filtered, raw: arguments.has("--raw"), toPath: out)
            if !arguments.has("--quiet"), out != "-" {
                context.stdout.line("exported \(rows) \(format == .ndjson ? "lines" : "rows") to \(out)")
            }
            return .success
        } catch let error as ReportError {
            throw CLIError(error)
        }
    }

    /// `--format`: csv (default) or ndjson, which only events have.
    static func format(_ arguments: ParsedArguments, kind: ExportKind) throws(CLIError) -> ExportFormat {
        guard let given = arguments.value("--format") else { return .csv }
        guard let format = ExportFormat(rawValue: given) else {
            throw CLIError.usage("--format must be csv or ndjson, not '\(given)'")
        }
        if format == .ndjson, kind != .events {
            throw CLIError.usage("--format ndjson is for `export events` only; export \(kind.rawValue) writes CSV")
        }
        return format
    }
}
