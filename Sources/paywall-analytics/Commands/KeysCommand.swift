import Foundation
import PaywallCollector
import PaywallCore
import PaywallStore

/// `keys add|list|revoke`: the collector's write keys and RevenueCat webhook secrets.
enum KeysCommand {
    static var spec: CommandSpec {
        CommandSpec(
            name: "keys",
            abstract:
                "Manage the write keys that app installs send to the collector (`serve`), and its webhook secrets.",
            discussion: """
                A write key is shown once, when it is made; the database keeps only its SHA-256. A revoked key is
                refused from the collector's next request on, without a restart. `keys add NAME --webhook` makes a
                secret for RevenueCat's webhooks instead (POST /v1/revenuecat/webhooks); neither kind opens the
                other's route.
                """,
            usage: "keys <subcommand>",
            examples: [
                "\(Tool.name) keys add ios-app > ios-app.key", "\(Tool.name) keys add revenuecat --webhook",
                "\(Tool.name) keys list",
                "\(Tool.name) keys revoke ios-app",
            ],
            subcommands: [add, list, revoke]
        )
    }

    static var add: CommandSpec {
        CommandSpec(
            name: "add",
            abstract:
                "Make a new write key (or, with --webhook, a webhook secret) named NAME and print it, alone, on stdout.",
            discussion: """
                The explanation goes to stderr, so `key=$(\(Tool.name) keys add NAME)` captures the key alone. With
                --webhook the secret is for RevenueCat: paste it into the webhook's "Authorization header value" field
                (RevenueCat then sends it as the whole Authorization value; `Bearer <secret>` is accepted too).
                """,
            usage: "keys add <name> [--webhook]",
            arguments: [("<name>", "1 to 64 letters, digits, '.', '_' or '-'; metrics count events by it.")],
            options: [
                .flag(
                    "--webhook",
                    "Make a RevenueCat webhook secret (opens POST /v1/revenuecat/webhooks only), not a write key.")
            ],
            examples: [
                "\(Tool.name) keys add ios-app > ios-app.key", "key=$(\(Tool.name) keys add android-app)",
                "\(Tool.name) keys add revenuecat --webhook",
            ],
            run: { context, arguments in
                guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
                    throw CLIError.usage("keys add needs exactly one NAME")
                }
                let store = try StoreAccess.open(
                    context.databasePath(arguments), create: true,
                    readOnly: .refuse("keys add stores the new key's hash in it"))
                let kind: WriteKeys.Kind = arguments.has("--webhook") ? .webhook : .write
                let key: String
                do {
                    key = try WriteKeys(connection: store.connection, now: .system).add(name: name, kind: kind)
                } catch let error as WriteKeyError {
                    throw CLIError(
                        .usage, error.description,
                        showsUsage: { if case .invalidName = error { true } else { false } }())
                } catch {
                    throw StoreAccess.map(error)
                }
                context.stdout.line(key)
                switch kind {
                case .write:
                    context.stderr.line(
                        "Made the write key '\(name)'. It is shown only this once (the database keeps its "
                            + "SHA-256): give it to the app's uploader as Authorization: Bearer <key>.")
                case .webhook:
                    context.stderr.line(
                        "Made the webhook secret '\(name)'. It is shown only this once (the database keeps its "
                            + "SHA-256): in RevenueCat's webhook settings, set the URL to "
                            + "https://<your collector>\(Collector.webhookPath) and paste the secret into the "
                            + "Authorization header value field.")
                }
                return .success
            }
        )
    }

    static var list: CommandSpec {
        CommandSpec(
            name: "list",
            abstract:
                "List the keys: name, kind (write or webhook), when made, and whether revoked (never the keys themselves).",
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
                context.stdout.line("NAME\tKIND\tCREATED\tSTATE")
                for entry in entries {
                    let state = entry.revokedAt.map { "revoked \(StatsCommand.iso($0))" } ?? "valid"
                    context.stdout.line(
                        "\(entry.name)\t\(entry.kind.rawValue)\t\(StatsCommand.iso(entry.createdAt))\t\(state)")
                }
                return .success
            }
        )
    }

    static var revoke: CommandSpec {
        CommandSpec(
            name: "revoke",
            abstract:
                "Refuse the key or webhook secret named NAME from now on (a running collector too, from its next request).",
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
                if !arguments.has("--quiet") { context.stderr.line("Revoked the key '\(name)'.") }
                return .success
            }
        )
    }
}
