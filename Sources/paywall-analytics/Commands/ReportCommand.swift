import Foundation
import PaywallCollector
import PaywallCore
import PaywallReports
import PaywallStore

/// `report`: the funnels of funnels.md as CSV files (and the HTML page), for a date range or as
/// the incremental nightly job.
enum ReportCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "report",
            abstract:
                "Compute the funnels per placement and day into CSV files, for a date range or as the nightly job.",
            discussion: """
                With --from and --to, computes every report for the presentations whose day is in the inclusive range.
                With --nightly, folds in the events stored since the previous run (late events included), recomputes
                exactly the days they touch, and rewrites the trailing window (--days, default all history) plus
                run.json. Each run is written to --out/runs/<run id>/ and shown through --out/current, switched in
                one step when the run is complete; the report names at the top of --out are links through current.
                A reader never sees files of two runs together, and a failed or killed run leaves the previous set on
                show. The run before the current one is kept, older runs are removed; nothing else in --out is
                touched. One run at a time writes into an --out folder. Definitions: funnels.md.

                A --placement or --control the store has never seen is refused before anything is written, naming the
                known values nearest to it (a misspelling is not taken for an empty report or the default control).

                --platform and --app-version (each repeatable; several values of one flag: any of them, both flags: both
                must match) keep only the presentations whose first event came from that platform and app version, and
                every report is then the report of a store holding only those presentations (data_quality.csv, about what
                the store received, stays whole). An empty value (--platform '') means "not stated": catalog version 1
                events, or a device that left the field out. A filtered --nightly recomputes its whole window from the
                rollups (give it its own --out); the unfiltered nightly stays incremental.

                Exit codes: 0 done, 64 bad arguments, 65 the database is not a PaywallAnalytics store, a --placement,
                --app-version or --control names a value it has never seen, or a --platform is not a known platform
                (refused naming the nearest known ones), 66 no database, 73 cannot write --out, 74 I/O error, 75
                another report run holds this database or this --out.
                """,
            usage: "report (--from <date> --to <date> | --nightly [--days <n>]) --out <dir> [options]",
            options: [
                .value("--from", "date", "First day, YYYY-MM-DD (inclusive)."),
                .value("--to", "date", "Last day, YYYY-MM-DD (inclusive)."),
                .flag(
                    "--nightly", "Incremental nightly run: recompute the days that received events since the last run."),
                .value("--days", "n", "With --nightly: write the trailing n days ending today (default: all history)."),
                .value("--out", "dir", "Output folder for the CSV files (created if needed)."),
                .value("--placement", "name", "Only this placement (repeatable).", repeatable: true),
                .value(
                    "--platform", "name",
                    "Only presentations whose first event came from this platform, e.g. ios or android; '' for not stated (repeatable).",
                    repeatable: true),
                .value(
                    "--app-version", "version",
                    "Only presentations whose first event came from this app version, e.g. 3.2.0; '' for not stated (repeatable).",
                    repeatable: true),
                .value("--timezone", "zone", "IANA time zone that defines days, e.g. Europe/Berlin (default UTC)."),
                .value("--cohort-window", "duration", "Cohort conversion window, e.g. 72h or 3d (default 3d)."),
                .value(
                    "--control", "offering",
                    "Offering comparison: the control wherever a placement has this offering (default: its most-seen offering)."
                ),
                .value("--now", "time", "Treat this as the current time (ISO 8601 or Unix ms); default: the clock."),
                .flag("--raw", "Turn the spreadsheet formula guard off (for machine consumers)."),
            ],
            examples: [
                "\(Tool.name) report --from 2026-11-01 --to 2026-11-28 --out reports/november",
                "\(Tool.name) report --from 2026-11-01 --to 2026-11-28 --out /tmp/r --placement onboarding --timezone America/New_York",
                "\(Tool.name) report --nightly --out /var/lib/paywalls/report",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("report takes no arguments; did you mean --out \(arguments.positionals[0])?")
        }
        guard let out = arguments.value("--out"), !out.isEmpty else { throw CLIError.usage("report needs --out DIR") }
        let timezone = arguments.value("--timezone") ?? "UTC"
        let control = arguments.value("--control")
        if let control, control.isEmpty {
            throw CLIError.usage(
                "--control needs an offering id; leave it out to use each placement's most-seen offering")
        }
        let now = try NowOption.parse(arguments.value("--now"))
        let filter = try ContextFilterOption.parse(
            platforms: arguments.all("--platform"), appVersions: arguments.all("--app-version"))
        let bar = ProgressBar(context: context, arguments: arguments)
        defer { bar.finish() }
        do {
            let window = try arguments.value("--cohort-window").map { try CohortWindow(parsing: $0) } ?? .default
            if arguments.has("--nightly") {
                if arguments.value("--from") != nil || arguments.value("--to") != nil
                    || !arguments.all("--placement").isEmpty
                {
                    throw CLIError.usage(
                        "--nightly covers all placements and computes its own days; leave out --from, --to and --placement"
                            + " (--platform and --app-version are allowed)"
                    )
                }
                let days = try arguments.value("--days").map { text throws(CLIError) -> Int in
                    if !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }), Int(text) == nil {
                        throw .usage(
                            "--days \(text) reaches back before 1970-01-01, where reports start; omit --days for all history"
                        )
                    }
                    guard let days = Int(text), days >= 1 else {
                        throw .usage("--days must be a whole number of at least 1, got '\(text)'")
                    }
                    return days
                }
                let store = try StoreAccess.open(
                    context.databasePath(arguments), create: false, readOnly: rollupsWritten, now: now)
                var reports = FunnelReport(connection: store.connection, now: now)
                reports.control = control
                reports.contextFilter = filter
                reports.refusesUnknownFilterValues = true
                reports.sharesTheStoreWithACollector = CollectorLock.isHeld(databasePath: store.path)
                reports.progress = { bar.update("folding new events into the report rollups", fraction: $0) }
                let run = try reports.nightly(
                    into: out, days: days, timezone: timezone, cohortWindow: window, version: ProductVersion.current)
                bar.finish()
                if !arguments.has("--quiet") { context.stdout.line(describe(run, out: out)) }
                return .success
            }
            guard let fromText = arguments.value("--from"), let toText = arguments.value("--to") else {
                throw CLIError.usage("report needs --from and --to (YYYY-MM-DD), or --nightly")
            }
            if arguments.value("--days") != nil { throw CLIError.usage("--days goes with --nightly") }
            let from = try ReportDate(fromText)
            let to = try ReportDate(toText)
            let store = try StoreAccess.open(
                context.databasePath(arguments), create: false, readOnly: rollupsWritten, now: now)
            var reports = FunnelReport(connection: store.connection, now: now)
            reports.control = control
            reports.contextFilter = filter
            reports.refusesUnknownFilterValues = true
            reports.sharesTheStoreWithACollector = CollectorLock.isHeld(databasePath: store.path)
            reports.progress = { bar.update("folding new events into the report rollups", fraction: $0) }
            let summary = try reports.report(
                from: from, to: to, placements: arguments.all("--placement"), timezone: timezone,
                cohortWindow: window, formulaGuard: !arguments.has("--raw"), version: ProductVersion.current, into: out)
            bar.finish()
            if !arguments.has("--quiet") {
                let rows = summary.rows.values.reduce(0, +)
                context.stdout.line(
                    "wrote \(summary.rows.count) reports (\(rows) rows) for \(from) to \(to) into \(summary.directory)")
            }
            return .success
        } catch let error as ReportError {
            throw CLIError(error)
        }
    }

    /// A report folds new events into rollups kept in the store, so it needs write access.
    static let rollupsWritten = ReadOnlyUse.refuse("report keeps its rollups (the per-day sums it reads) in the store")

    static func describe(_ run: NightlyRun, out: String) -> String {
        guard run.outputsChanged else { return "no new events since the last run; \(out) is unchanged" }
        let days =
            run.daysRecomputed.isEmpty
            ? "no days"
            : "\(run.daysRecomputed.count) day(s) (\(run.daysRecomputed.first!) … \(run.daysRecomputed.last!))"
        return
            "read \(run.eventsRead) new events, recomputed \(days); wrote \(run.windowFrom) to \(run.windowTo) into \(out) (run.json has the details)"
    }
}

/// `--platform` and `--app-version`: checked before the store is opened. A platform must be one of the
/// catalog's (`DevicePlatform`) or `''` (not stated), else exit 65 naming the nearest ones (as an unknown
/// --placement or --control is refused); an app version
/// must fit the catalog's field (at most 64 characters, no control characters). Whether the store knows
/// the app version is checked after the rollups are refreshed (exit 65, like --placement).
enum ContextFilterOption {
    static func parse(platforms: [String], appVersions: [String]) throws(CLIError) -> ContextFilter {
        let known = DevicePlatform.allCases.map(\.rawValue)
        for platform in platforms where !platform.isEmpty && DevicePlatform(rawValue: platform) == nil {
            let near = NearestNames.closest(
                to: platform, among: known, limit: 2, within: NearestNames.typoDistance(for: platform))
            let hint = near.isEmpty ? "" : "did you mean \(near.joined(separator: " or "))? "
            throw CLIError(
                .badInput,
                "--platform '\(shown(platform))' is not a platform; \(hint)the platforms are "
                    + known.joined(separator: ", ") + ", or '' for events that do not say")
        }
        for version in appVersions {
            if version.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw .usage("--app-version must not hold control characters (tab, newline, …)")
            }
            if version.count > 64 {
                throw .usage("--app-version is at most 64 characters (the catalog's limit), got \(version.count)")
            }
        }
        return ContextFilter(platforms: platforms, appVersions: appVersions)
    }

    /// `text` with its control characters shown as `?` (a terminal never runs them from an error).
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}

/// `--now`: ISO 8601 (`2026-11-29T02:00:00Z`) or Unix milliseconds; the system clock when absent.
/// Only times from 1970-01-01 to 9999-12-31 are taken, the dates reports cover.
enum NowOption {
    /// 1970-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z in Unix milliseconds.
    static let supported: ClosedRange<Int64> = 0...253_402_300_799_999

    static func parse(_ text: String?) throws(CLIError) -> Now {
        guard let text else { return .system }
        let milliseconds: Int64
        let isInteger =
            text.drop { $0 == "-" || $0 == "+" }.allSatisfy { ("0"..."9").contains($0) }
            && text.contains { ("0"..."9").contains($0) }
        if isInteger {
            guard let value = Int64(text), supported.contains(value) else { throw outOfRange(text) }
            milliseconds = value
        } else {
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw .usage("--now must be ISO 8601 like 2026-11-29T02:00:00Z or Unix milliseconds, got '\(text)'")
            }
            let value = (date.timeIntervalSince1970 * 1000).rounded()
            guard value >= Double(supported.lowerBound), value <= Double(supported.upperBound) else {
                throw outOfRange(text)
            }
            milliseconds = Int64(value)
        }
        return .constant(milliseconds)
    }

    private static func outOfRange(_ text: String) -> CLIError {
        .usage(
            "--now \(text) is outside the times reports cover, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z "
                + "(Unix milliseconds 0 to \(supported.upperBound))")
    }
}
