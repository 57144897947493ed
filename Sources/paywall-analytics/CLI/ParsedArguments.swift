import PaywallCore

/// A command line after parsing: option values by long name, and positional arguments.
struct ParsedArguments: Sendable {
    /// Values of options that take one, by long name (`--db`); repeated options keep every value.
    var values: [String: [String]] = [:]
    /// Flags that were given, by long name.
    var flags: Set<String> = []
    /// Positional arguments in order.
    var positionals: [String] = []

    /// The last value of an option, if given.
    func value(_ name: String) -> String? { values[name]?.last }
    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }
    /// Whether a flag was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// Parses `arguments` against `options`: `--name value`, `--name=value`, flags, `-h`, and
    /// `--` to end options (so a positional may start with a dash; `-` alone is a positional).
    ///
    /// - Throws: a usage ``CLIError`` for an unknown option, a missing value, a value given to a
    ///   flag, or a non-repeatable option given twice.
    static func parse(_ arguments: [String], options: [OptionSpec]) throws(CLIError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let (name, inline) = split(argument)
            guard let spec = options.first(where: { $0.name == name || $0.short == name }) else {
                throw .usage("unknown option '\(name)'\(didYouMean(name, options)) Run with --help to see the options.")
            }
            guard spec.valueName != nil else {
                if inline != nil { throw .usage("the flag '\(spec.name)' takes no value") }
                parsed.flags.insert(spec.name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw .usage("the option '\(spec.name)' needs a value (\(spec.name) <\(spec.valueName ?? "value")>)")
            }
            if !spec.repeatable, parsed.values[spec.name] != nil {
                throw .usage("the option '\(spec.name)' was given more than once")
            }
            parsed.values[spec.name, default: []].append(value)
        }
        return parsed
    }

    /// `; did you mean --placement?` naming the options closest to a misspelled `name`, or `.` when
    /// none is near.
    static func didYouMean(_ name: String, _ options: [OptionSpec]) -> String {
        let names = options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }
        let near = NearestNames.closest(
            to: name, among: names, limit: 2, within: NearestNames.typoDistance(for: name))
        guard !near.isEmpty else { return "." }
        return "; did you mean \(near.joined(separator: " or "))?"
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
