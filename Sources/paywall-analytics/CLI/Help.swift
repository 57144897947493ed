/// Renders `--help` text in swift-argument-parser's layout:
/// OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS, then EXAMPLES.
enum Help {
    static func render(_ spec: CommandSpec, path: [String]) -> String {
        var out = "OVERVIEW: \(spec.abstract)\n\n"
        if !spec.discussion.isEmpty { out += spec.discussion + "\n\n" }
        out += "USAGE: \(usageLine(spec, path: path))\n\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n" + spec.arguments.map { row($0.name, $0.help) }.joined() + "\n"
        }
        let options = spec.options + GlobalOptions.all + (path.isEmpty ? [.flag("--version", "Show the version.")] : [])
        out += "OPTIONS:\n" + options.map { row(label($0), $0.help) }.joined()
        if !spec.subcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n" + spec.subcommands.map { row($0.name, $0.abstract) }.joined()
            out +=
                "\n  See '\(Tool.name) help \((path + ["<subcommand>"]).joined(separator: " "))' for detailed help.\n"
        }
        if !spec.examples.isEmpty {
            out += "\nEXAMPLES:\n" + spec.examples.map { "  \($0)\n" }.joined()
        }
        return out
    }

    static func usageLine(_ spec: CommandSpec, path: [String]) -> String {
        ([Tool.name] + path.dropLast()).joined(separator: " ") + " " + spec.usage
    }

    static func label(_ option: OptionSpec) -> String {
        let names = [option.short, option.name].compactMap { $0 }.joined(separator: ", ")
        guard let value = option.valueName else { return names }
        return "\(names) <\(value)>" + (option.repeatable ? " ..." : "")
    }

    static func row(_ label: String, _ help: String) -> String {
        let width = 26
        let lead = "  " + label
        if lead.count >= width - 1 { return lead + "\n" + String(repeating: " ", count: width) + help + "\n" }
        return lead + String(repeating: " ", count: width - lead.count) + help + "\n"
    }
}
