import PaywallCore

/// The `paywall-analytics` command tree and its dispatcher: parse, then validate, then run;
/// help to stdout with exit 0; errors to stderr as `Error: …` plus the usage line.
enum Tool {
    static let name = "paywall-analytics"
    static let version = ProductVersion.current

    /// The root command; every subcommand registers here.
    static var root: CommandSpec {
        CommandSpec(
            name: name,
            abstract:
                "Measure how your paywalls perform: record paywall events, forward impressions to RevenueCat, report funnels per placement.",
            usage: "<subcommand> [options]",
            examples: [
                "\(name) catalog generate",
                "\(name) catalog check",
                "\(name) help catalog",
            ],
            subcommands: Commands.all
        )
    }

    /// Runs the tool on `arguments` (without the program name); returns the exit code: the
    /// command's, or 74 when it succeeded but a write to stdout or stderr failed (then stderr
    /// says so, if it can).
    static func run(_ arguments: [String], context: CommandContext) async -> Int32 {
        let code = await dispatch(arguments, context: context)
        return checkedWrites(code, context: context)
    }

    /// `code`, or 74 when a write to stdout or stderr failed and `code` claims success. A failed
    /// stdout is reported on stderr; when stderr itself failed there is nowhere to say it.
    static func checkedWrites(_ code: Int32, context: CommandContext) -> Int32 {
        if let failure = context.stdout.failure {
            context.stderr.line(
                "Error: cannot write to standard output (\(failure)); the output is incomplete. "
                    + "Check the file, disk or pipe it goes to, or write to a file with --out where the command has it."
            )
        }
        let failed = context.stdout.failure != nil || context.stderr.failure != nil
        return failed && code == ExitCode.success.rawValue ? ExitCode.ioError.rawValue : code
    }

    private static func dispatch(_ arguments: [String], context: CommandContext) async -> Int32 {
        var spec = root
        var path: [String] = []
        var rest: [String] = []
        var sawPositional = false
        var index = 0
        // Walk down the subcommand words; global options may come before them.
        while index < arguments.count {
            let argument = arguments[index]
            if path.isEmpty, rest.isEmpty, argument == "help" {
                return help(for: Array(arguments[(index + 1)...]), context: context)
            }
            if !sawPositional, let sub = spec.subcommands.first(where: { $0.name == argument }) {
                spec = sub
                path.append(argument)
            } else if argument == "--db", index + 1 < arguments.count {
                rest += [argument, arguments[index + 1]]
                index += 1
            } else {
                sawPositional = sawPositional || !argument.hasPrefix("-")
                rest.append(argument)
            }
            index += 1
        }
        if path.isEmpty, rest.contains("--version") {
            context.stdout.line(version)
            return ExitCode.success.rawValue
        }
        do {
            let parsed = try ParsedArguments.parse(rest, options: spec.options + GlobalOptions.all)
            if spec.run == nil, let word = parsed.positionals.first {
                let here = ([name] + path).joined(separator: " ")
                let near = NearestNames.closest(
                    to: word, among: spec.subcommands.map(\.name), limit: 2,
                    within: NearestNames.typoDistance(for: word))
                let guess = near.isEmpty ? "." : "; did you mean \(near.joined(separator: " or "))?"
                throw CLIError.usage(
                    "unknown subcommand '\(word)'\(guess) Run '\(here) --help' to see the subcommands.")
            }
            if parsed.has("--help") || spec.run == nil {
                context.stdout.write(Help.render(spec, path: path))
                return ExitCode.success.rawValue
            }
            guard let run = spec.run else { return ExitCode.success.rawValue }
            return try await run(context, parsed).rawValue
        } catch let error as CLIError {
            return fail(error, spec: spec, path: path, context: context)
        } catch {
            let mapped = CLIError(error) {
                "internal error: \($0). This is a bug; please report it with the command you ran."
            }
            return fail(mapped, spec: spec, path: path, context: context)
        }
    }

    static func help(for words: [String], context: CommandContext) -> Int32 {
        var spec = root
        var path: [String] = []
        for word in words {
            guard let sub = spec.subcommands.first(where: { $0.name == word }) else {
                return fail(
                    .usage("no help for '\(word)': there is no such subcommand."), spec: spec, path: path,
                    context: context)
            }
            spec = sub
            path.append(word)
        }
        context.stdout.write(Help.render(spec, path: path))
        return ExitCode.success.rawValue
    }

    static func fail(_ error: CLIError, spec: CommandSpec, path: [String], context: CommandContext) -> Int32 {
        context.stderr.line("Error: \(error.message)")
        if error.showsUsage {
            context.stderr.line("Usage: \(Help.usageLine(spec, path: path))")
            context.stderr.line("  See '\(([name] + path).joined(separator: " ")) --help' for more information.")
        }
        return error.code.rawValue
    }
}
