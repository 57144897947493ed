import Foundation
import PaywallCollector
import PaywallCore
import PaywallStore

/// `keys add|list|revoke`: the collector's write keys.
enum KeysCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "keys",
            abstract: "Manage the write keys that app installs send to the collector (`serve`).",
            discussion: """
                A write key is shown once, when it is made; the database keeps only its SHA-256. A revoked key is
                refused from the collector's next request on, without a restart.
                """,
            usage: "keys <subcommand>",
            examples: [
                "\(Tool.name) keys add ios-app > ios-app.key", "\(Tool.name) keys list",
                "\(Tool.name) keys revoke ios-app",
            ],
            subcommands: [add, list, revoke]
        )
    }

    static var add: CommandSpec {
        CommandSpec(
            name: "add",
            abstract: "Make a new write key named NAME and print it, alone, on standard output.",
            discussion:
                "The explanation goes to stderr, so `key=$(\(Tool.name) keys add NAME)` captures the key alone.",
            usage: "keys add <name>",
            arguments: [("<name>", "1 to 64 letters, digits, '.', '_' or '-'; metrics count events by it.")],
            examples: ["\(Tool.name) keys add ios-app > ios-app.key", "key=$(\(Tool.name) keys add android-app)"],
            run: { context, arguments in
                guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
                    throw CLIError.usage("keys add needs exactly one NAME")
                }
                let store = try StoreAccess.open(
                    context.databasePath(arguments), create: true,
                    readOnly: .refuse("keys add stores the new key's hash in it"))
                let key: String
                do {
                    key = try WriteKeys(connection: store.connection, now: .system).add(name: name)
                } catch let error as WriteKeyError {
                    throw CLIError(
                        .usage, error.description,
                        showsUsage: { if case .invalidName = error { true } else { false } }())
                } catch {
                    throw StoreAccess.map(error)
                }
                context.stdout.line(key)
                context.stderr.line(
                    "Made the write key '\(name)'. It is shown only this once (the database keeps its "
                        + "SHA-256): give it to the app's uploader as Authorization: Bearer <key>.")
                return .success
            }
        )
    }

    static var list: CommandSpec {
        CommandSpec(
            name: "list",
            abstract: "List the write keys: name, when made, and whether revoked (never the keys themselves).",
            usage: "keys list",
            examples: ["\(Tool.name) keys list --db /var/lib/paywalls/events.sqlite"],
            run: { context, arguments in
                guard arguments.positionals.isEmpty else { throw CLIError.usage("keys list takes no arguments") }
                let store = try StoreAccess.open(context.databasePath(arguments), create: false, readOnly: .read)
                let entries: [WriteKeys.Entry]
                do { entries = try WriteKeys(connection: store.connection, now: .system).list() } catch {
                    throw StoreAccess.map(error)
                }
                if entries.isEmpty {
                    context.stderr.line("No write keys yet; make one with `\(Tool.name) keys add NAME`.")
                    return .success
                }
                context.stdout.line("NAME\tCREATED\tSTATE")
                for entry in entries {
                    let state = entry.revokedAt.map { "revoked \(StatsCommand.iso($0))" } ?? "valid"
                    context.stdout.line("\(entry.name)\t\(StatsCommand.iso(entry.createdAt))\t\(state)")
                }
                return .success
            }
        )
    }

    static var revoke: CommandSpec {
        CommandSpec(
            name: "revoke",
            abstract: "Refuse the write key named NAME from now on (a running collector too, from its next request).",
            usage: "keys revoke <name>",
            arguments: [("<name>", "The key's name, as `keys list` shows it.")],
            examples: ["\(Tool.name) keys revoke ios-app"],
            run: { context, arguments in
                guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
                    throw CLIError.usage("keys revoke needs exactly one NAME")
                }
                let store = try StoreAccess.open(
                    context.databasePath(arguments), create: false,
                    readOnly: .refuse("keys revoke marks the key revoked in it"))
                do {
                    try WriteKeys(connection: store.connection, now: .system).revoke(name: name)
                } catch let error as WriteKeyError {
                    throw CLIError(.badInput, error.description)
                } catch {
                    throw StoreAccess.map(error)
                }
                if !arguments.has("--quiet") { context.stderr.line("Revoked the write key '\(name)'.") }
                return .success
            }
        )
    }
}
