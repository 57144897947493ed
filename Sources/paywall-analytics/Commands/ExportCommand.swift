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
            """,
            usage: "export <what> --out <file> [--from <date>] [--to <date>] [--placement <name>]... [--name <event>]... [--raw]",
            arguments: [("<what>", "events | funnels | quarantine | dead-letters")],
            options: [
                .value("--out", "file", "Where to write the CSV; - for standard output."),
                .value("--from", "date", "First day, YYYY-MM-DD (inclusive)."),
                .value("--to", "date", "Last day, YYYY-MM-DD (inclusive)."),
                .value("--placement", "name", "Only this placement (repeatable).", repeatable: true),
                .value("--name", "event", "Only this event name (repeatable).", repeatable: true),
                .value("--timezone", "zone", "IANA time zone that defines days (default UTC)."),
                .flag("--raw", "Turn the spreadsheet formula guard off."),
            ],
            examples: [
                "\(Tool.name) export events --out events.csv --from 2026-11-01 --to 2026-11-28",
                "\(Tool.name) export quarantine --out - | less",
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
        guard let out = arguments.value("--out"), !out.isEmpty else { throw CLIError.usage("export needs --out FILE (or --out - for standard output)") }
        let store = try StoreAccess.open(context.databasePath(arguments), create: false,
                                         readOnly: kind == .funnels ? ReportCommand.rollupsWritten : .read)
        do {
            let filter = ExportFilter(from: try arguments.value("--from").map(ReportDate.init),
                                      to: try arguments.value("--to").map(ReportDate.init),
                                      placements: arguments.all("--placement"), names: arguments.all("--name"),
                                      timezone: arguments.value("--timezone") ?? "UTC")
            let rows = try Exporter(connection: store.connection).export(kind, filter: filter, raw: arguments.has("--raw"), toPath: out)
            if !arguments.has("--quiet"), out != "-" { context.stdout.line("exported \(rows) rows to \(out)") }
            return .success
        } catch let error as ReportError {
            throw CLIError(error)
        }
    }
}
