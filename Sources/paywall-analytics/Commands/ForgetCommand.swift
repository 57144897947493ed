import Foundation
import PaywallCore
import PaywallReports
import PaywallStore
import PaywallSubscriptions

/// `forget --user ID…`: erases customers from a store (an app's, a collector's, a report store) and
/// suppresses their later events; `--allow-again` lifts the suppression. Never prints an id.
enum ForgetCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "forget",
            abstract: "Erase customers (every event of theirs and everything derived) and refuse their later events.",
            discussion: """
                Erases every event whose user_id is one of the ids, the outbox entries, deliveries and dead letters of
                those events, the quarantined lines that carry an id, the customers' rows in the report rollups
                (the days they touched are recomputed by the next `report --nightly`), and every RevenueCat
                subscription event that names an id (as app_user_id, original_app_user_id, an alias, or anywhere in
                its webhook body, such as a transfer's transferred_from), raw body and customer keys included. The erasing transaction overwrites
                deleted content (secure_delete), the write-ahead log is then checkpointed and truncated, and the file is
                rebuilt (VACUUM) when older copies of an id remain in its free space. The ids then go on the store's
                suppression list as salted SHA-256 hashes (never the ids): later events of theirs, from an import, an
                upload to the collector, a RevenueCat webhook or the recorder, are refused and counted as suppressed. --allow-again takes ids
                off that list (it erases nothing). An id that matches nothing stored is said so (without the id) and is
                put on the suppression list all the same. Ids are compared byte for byte and never printed. Backups and copies
                made outside this tool (exports, files copied elsewhere) are not touched. Exit codes: 0 done, 64 a bad
                id list, 66 no such database or no such --users-from file, 75 the store is busy (retry; running forget again is safe).
                A command line is visible to other users of the machine (ps, /proc) and kept in shell history: to keep
                customers' ids off it, put them in a file, one per line, and pass --users-from FILE (or - to read them
                from standard input); --user and --users-from can be combined.
                """,
            usage: "forget (--user <id> [--user <id>]... | --users-from <file|->) [--allow-again]",
            options: [
                .value("--user", "id", "A customer's exact RevenueCat app user id (repeatable).", repeatable: true),
                .value(
                    "--users-from", "file",
                    "Read the ids from a file, one per line (LF; a final newline is optional; - reads standard input), "
                        + "so they never appear in the command line."),
                .flag(
                    "--allow-again",
                    "Take the ids off the suppression list instead: their later events are stored again."),
            ],
            examples: [
                "\(Tool.name) forget --user '$RCAnonymousID:1f0c…'",
                "\(Tool.name) --db /var/lib/paywalls/central.sqlite forget --user alice --user bob",
                "\(Tool.name) forget --user alice --allow-again",
                "\(Tool.name) --db central.sqlite forget --users-from - < ids-to-erase.txt",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("forget takes no positional arguments; name each customer with --user ID")
        }
        var given = arguments.all("--user")
        if let source = arguments.value("--users-from") { given += try readIDs(source) }
        let ids: [String]
        do { ids = try UserErasure.validated(given) } catch {
            throw CLIError.usage(error.description)
        }
        let store = try StoreAccess.open(
            context.databasePath(arguments), create: false,
            readOnly: .refuse("forget deletes rows from it"))
        let erasure = UserErasure(store: store, participants: [ReportErasure(), SubscriptionErasure()])
        let quiet = arguments.has("--quiet")
        if arguments.has("--allow-again") {
            let removed: Int
            do { removed = try erasure.allowAgain(ids) } catch { throw StoreAccess.map(error) }
            if !quiet {
                context.stdout.line(
                    "allowed again: \(removed) of \(ids.count) customer\(ids.count == 1 ? " was" : "s were") "
                        + "on the suppression list; their later events will be stored")
            }
            return .success
        }
        let report: ErasureReport
        do { report = try erasure.forget(ids) } catch { throw StoreAccess.map(error) }
        if !quiet { context.stdout.write(render(report, customers: ids.count)) }
        if report.residueInOtherData {
            context.stderr.line(
                """
                Note: after the rebuild, the bytes of an erased id still occur in the database as part of other data \
                that is not the customer's (for example a placement or product name, or a longer id that contains it). \
                Those rows were kept; check them with `\(Tool.name) export events --out -` if that is unexpected.
                """)
        }
        return .success
    }

    /// The ids in the file at `source` (`-`: standard input), one per line: each line's bytes up to
    /// its LF are the id, exactly (no trimming: ids are compared byte for byte), and a final newline
    /// is optional. Never echoes an id in an error.
    static func readIDs(_ source: String) throws -> [String] {
        let data: Data
        do {
            data =
                source == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: source))
        } catch {
            throw CLIError(
                .missingInput,
                "cannot read the ids from \(source) (\((error as NSError).localizedDescription)); "
                    + "give a readable file with one id per line, or - for standard input")
        }
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        var ids: [String] = []
        for (index, line) in lines.enumerated() {
            // Decoding replaces invalid bytes: a line that does not come back byte for byte is not UTF-8.
            let id = String(decoding: line, as: UTF8.self)
            guard id.utf8.elementsEqual(line) else {
                throw CLIError.usage(
                    "line \(index + 1) of \(source == "-" ? "standard input" : source) is not UTF-8 text; "
                        + "ids are UTF-8, one per line")
            }
            if id.isEmpty {
                throw CLIError.usage(
                    "line \(index + 1) of \(source == "-" ? "standard input" : source) is empty; "
                        + "give one id per line, with no blank lines")
            }
            ids.append(id)
        }
        return ids
    }

    /// A table's name padded to the count column (24), or followed by one space when longer.
    static func cell(_ name: String) -> String {
        name.count < 24 ? name.padding(toLength: 24, withPad: " ", startingAt: 0) : name + " "
    }

    /// The summary: rows erased per table (or that nothing stored matched), the suppression list and
    /// how the file was cleaned. Never an id: only counts.
    static func render(_ report: ErasureReport, customers: Int) -> String {
        let them = customers == 1 ? "the id" : "the \(customers) ids"
        var out: String
        if report.rowsErased == 0 {
            out =
                "no stored data matched \(them) given (ids are not shown); nothing was erased. "
                + "\(customers == 1 ? "It is" : "They are") on the suppression list all the same, so later events with "
                + "\(customers == 1 ? "it" : "them") are refused (`forget --allow-again` lifts that).\n"
        } else {
            let unmatched = customers - report.customersWithEvents
            let note = unmatched > 0 ? "; \(unmatched) of them matched no stored paywall event" : ""
            out = "forgot \(customers) customer\(customers == 1 ? "" : "s") (ids are not shown\(note)); rows erased:\n"
            for entry in report.tables {
                out += "  " + cell(entry.table) + String(entry.rows) + "\n"
            }
        }
        out +=
            "suppression list: \(report.suppressionsAdded) added (their later events are refused and counted as suppressed)\n"
        out +=
            report.vacuumed
            ? "file: write-ahead log checkpointed and truncated; rebuilt (VACUUM) to remove older copies left in free space\n"
            : "file: write-ahead log checkpointed and truncated; no copy of the ids is left in the database files\n"
        return out
    }
}
