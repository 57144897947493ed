import Foundation
import PaywallCore
import PaywallStore
import PaywallSubscriptions

/// `import FILE…|-`: NDJSON or another store's SQLite file into the events database.
enum ImportCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "import",
            abstract: "Import events from NDJSON files, standard input, or another store's SQLite file.",
            discussion: """
                Each NDJSON line is one flat JSON object: the envelope fields and the event's properties side by side
                (see catalog/README.md). Every event is validated against the catalog; an event identical to a stored one
                (same id, ids compared in any letter case, and the same fields) is counted as a duplicate and stored
                once; an event with a stored id but other content is a conflict: the stored event is kept and the new
                version goes to the quarantine with the fields that differ; a bad line goes to the quarantine with
                every reason. Neither stops the import. Files are streamed, so a file larger than memory imports in constant
                memory. Impressions enter the RevenueCat outbox unless --no-forward says they were forwarded already.

                Another store's SQLite file keeps each impression's delivery state: one delivered there (or forwarded
                by the app install that uploaded it) is recorded as delivered, one dead-lettered there keeps its dead
                letter, and only those still pending there enter the outbox (or, with --no-forward, are marked
                delivered). An impression already delivered or dead-lettered in this store keeps its state. This is
                how the shards of several collectors merge into one report store.

                With --revenuecat the files hold RevenueCat webhook bodies instead, one whole body
                ({"api_version":…,"event":{…}}) per line, as the collector's webhook route receives them (a backfill):
                stored as subscription events, a repeated event.id is a duplicate stored once, a line that can never be
                an event (not JSON, no event object, no string event.id, a known field of the wrong type) goes to the
                quarantine with its reasons, and a forgotten customer's event is refused and counted as suppressed.

                Exit codes: 0 all imported, 65 some lines quarantined or in conflict (the good ones are stored), 66 a
                file is missing, 74 a file cannot be read, 75 the database is locked.
                """,
            usage: "import <file>... [--no-forward | --revenuecat]",
            arguments: [("<file>", "NDJSON file, `-` for standard input, or a PaywallAnalytics SQLite database.")],
            options: [
                .flag("--no-forward", "Mark imported impressions as already forwarded to RevenueCat."),
                .flag(
                    "--revenuecat", "The files hold RevenueCat webhook bodies (NDJSON), stored as subscription events."),
            ],
            examples: [
                "\(Tool.name) import events-2026-11-28.ndjson",
                "zcat archive.ndjson.gz | \(Tool.name) import -",
                "\(Tool.name) import --no-forward old-device.sqlite",
                "\(Tool.name) import shard-eu.sqlite shard-us.sqlite --db report.sqlite",
                "\(Tool.name) import --revenuecat revenuecat-webhooks.ndjson",
            ],
            run: run
        )
    }

    @Sendable static func run(_ context: CommandContext, _ arguments: ParsedArguments) async throws -> ExitCode {
        guard !arguments.positionals.isEmpty else {
            throw CLIError.usage("import needs at least one file, or - for standard input")
        }
        let path = context.databasePath(arguments)
        if arguments.has("--revenuecat") {
            guard !arguments.has("--no-forward") else {
                throw CLIError.usage(
                    "--no-forward is about paywall impressions; --revenuecat imports subscription events, which are never forwarded"
                )
            }
            return try RevenueCatImport.run(context, arguments, databasePath: path)
        }
        let store = try StoreAccess.open(path, create: true, readOnly: .refuse("import stores events in it"))
        let importer = Importer(store: store, options: ImportOptions(forward: !arguments.has("--no-forward")))
        let bar = ProgressBar(context: context, arguments: arguments)
        let result: ImportResult
        do {
            result = try importer.importFiles(arguments.positionals) { progress in
                let counts =
                    "\(progress.result.imported) imported, \(progress.result.duplicates) duplicates, "
                    + "\(progress.result.conflicts) conflicts, \(progress.result.quarantined) quarantined"
                bar.update("\(progress.origin): \(counts)", fraction: progress.fraction)
            }
        } catch let error as ImportError {
            bar.finish()
            throw CLIError(error)
        } catch {
            bar.finish()
            throw StoreAccess.map(error)
        }
        bar.finish()
        if !arguments.has("--quiet") {
            context.stdout.line(
                "imported \(result.imported), duplicates \(result.duplicates), "
                    + "conflicts \(result.conflicts), quarantined \(result.quarantined)"
                    + (result.suppressed > 0 ? ", suppressed \(result.suppressed) (forgotten customers)" : ""))
        }
        if result.conflicts > 0 {
            let count = result.conflicts
            context.stderr.line(
                "Warning: \(count) event\(count == 1 ? "" : "s") reused the id of a stored event with "
                    + "other content; the stored event\(count == 1 ? " was" : "s were") kept and the new "
                    + "version\(count == 1 ? " is" : "s are") in the quarantine with the fields that differ "
                    + "(`\(Tool.name) export quarantine --out -`). Give every distinct event its own id.")
        }
        if result.quarantined > 0 {
            let again =
                result.alreadyQuarantined > 0
                ? " (\(result.alreadyQuarantined) already were, from an earlier import, and were not stored twice)" : ""
            context.stderr.line(
                "Warning: \(result.quarantined) line\(result.quarantined == 1 ? "" : "s") quarantined\(again); see them with `\(Tool.name) export quarantine --out -` (the good events were stored)."
            )
        }
        return ExitCode(result)
    }
}

/// `import --revenuecat FILE…|-`: RevenueCat webhook bodies, one per line, into the subscription events.
enum RevenueCatImport {
    static func run(_ context: CommandContext, _ arguments: ParsedArguments, databasePath path: String) throws
        -> ExitCode
    {
        let store = try StoreAccess.open(path, create: true, readOnly: .refuse("import stores events in it"))
        let importer = SubscriptionImporter(
            store: SubscriptionEventStore(connection: store.connection), now: { store.now.milliseconds() })
        var result = SubscriptionImportResult()
        for file in arguments.positionals {
            do { result.add(try importer.importFile(file)) } catch let error as ImportError {
                throw CLIError(error)
            } catch let error as SQLiteInputError {
                throw CLIError(error)
            } catch {
                throw StoreAccess.map(error)
            }
        }
        if !arguments.has("--quiet") {
            context.stdout.line(
                "subscription events: imported \(result.imported) (\(result.sandbox) sandbox or TEST), "
                    + "duplicates \(result.duplicates), quarantined \(result.quarantined)"
                    + (result.suppressed > 0 ? ", suppressed \(result.suppressed) (forgotten customers)" : ""))
        }
        if result.quarantined > 0 {
            context.stderr.line(
                "Warning: \(result.quarantined) line\(result.quarantined == 1 ? "" : "s") quarantined (not a RevenueCat "
                    + "webhook body); see them with `\(Tool.name) export quarantine --out -` (the good events were stored)."
            )
        }
        return ExitCode(result)
    }
}
