/// One option of a command: its names, the value it takes (if any) and its help.
struct OptionSpec: Sendable {
    /// Long name with dashes, e.g. `--db`.
    var name: String
    /// Short name with a dash, e.g. `-h`.
    var short: String?
    /// Name of the value, e.g. `path`; `nil` for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// Whether the option may be given more than once.
    var repeatable = false

    static func flag(_ name: String, short: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help)
    }

    static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: nil, valueName: valueName, help: help, repeatable: repeatable)
    }
}

/// A subcommand: its help text, options, and what it runs.
struct CommandSpec: Sendable {
    /// The word that selects it, e.g. `import`.
    var name: String
    /// One-line summary for OVERVIEW and the SUBCOMMANDS list.
    var abstract: String
    /// Further explanation shown under OVERVIEW.
    var discussion: String = ""
    /// The usage line after the tool name, e.g. `import <file>... [--no-forward]`.
    var usage: String
    /// Positional arguments and their help.
    var arguments: [(name: String, help: String)] = []
    /// Options the command accepts (the global ones are added automatically).
    var options: [OptionSpec] = []
    /// Example invocations, shown at the end of `--help`.
    var examples: [String] = []
    /// Nested subcommands (e.g. `catalog check`).
    var subcommands: [CommandSpec] = []
    /// Runs the command; returns the exit code.
    var run: (@Sendable (CommandContext, ParsedArguments) async throws -> ExitCode)?
}

/// The options every command accepts.
enum GlobalOptions {
    static let all: [OptionSpec] = [
        .value(
            "--db", "path", "The events database (default: $PAYWALL_ANALYTICS_DB, else the per-user data directory)."),
        .flag("--quiet", "Print no progress and no summary; errors still go to stderr."),
        .flag("--help", short: "-h", "Show help information."),
    ]
}
