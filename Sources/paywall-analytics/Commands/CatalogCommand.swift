import Foundation
import PaywallCatalogTools
import PaywallCore
import PaywallOutput

/// `catalog check|docs|generate`: validate the event catalog and regenerate what comes from it.
enum CatalogCommand {
    static let defaultPath = "catalog/catalog.json"

    static var spec: CommandSpec {
        CommandSpec(
            name: "catalog",
            abstract: "Validate the event catalog and regenerate its Swift code and Markdown reference.",
            usage: "catalog <subcommand>",
            examples: ["\(Tool.name) catalog check", "\(Tool.name) catalog generate && \(Tool.name) catalog docs"],
            subcommands: [check, docs, generate]
        )
    }

    static var check: CommandSpec {
        CommandSpec(
            name: "check",
            abstract: "Validate a catalog file and name every problem in it.",
            discussion:
                "Exits 0 when the catalog is sound, 65 listing every problem when it is not, 66 when the file is missing.",
            usage: "check [<file>]",
            arguments: [("<file>", "The catalog to check (default: \(defaultPath)).")],
            examples: ["\(Tool.name) catalog check", "\(Tool.name) catalog check my-catalog.json"],
            run: { context, arguments in
                let path = try singleFile(arguments)
                let catalog = try load(path)
                if !arguments.has("--quiet") {
                    context.stdout.line(
                        "\(path): OK (catalog version \(catalog.catalogVersion), \(catalog.events.count) events, \(catalog.properties.count) properties)"
                    )
                }
                return .success
            }
        )
    }

    static var docs: CommandSpec {
        CommandSpec(
            name: "docs",
            abstract: "Write the Markdown reference of the catalog to \(CatalogDocsGenerator.outputPath).",
            usage: "docs [--catalog <file>] [--output <file>]",
            options: [
                catalogOption,
                .value("--output", "file", "Where to write (default: \(CatalogDocsGenerator.outputPath))."),
            ],
            examples: ["\(Tool.name) catalog docs"],
            run: { context, arguments in
                let catalog = try load(arguments.value("--catalog") ?? defaultPath)
                let output = arguments.value("--output") ?? CatalogDocsGenerator.outputPath
                try write(CatalogDocsGenerator.generate(catalog: catalog), to: output)
                if !arguments.has("--quiet") { context.stdout.line("wrote \(output)") }
                return .success
            }
        )
    }

    static var generate: CommandSpec {
        CommandSpec(
            name: "generate",
            abstract: "Regenerate the typed Swift API from the catalog into \(CatalogSwiftGenerator.outputPath).",
            usage: "generate [--catalog <file>] [--output <file>]",
            options: [
                catalogOption,
                .value("--output", "file", "Where to write (default: \(CatalogSwiftGenerator.outputPath))."),
            ],
            examples: ["\(Tool.name) catalog generate && swift build"],
            run: { context, arguments in
                let path = arguments.value("--catalog") ?? defaultPath
                let catalog = try load(path)
                let json = try String(contentsOfFile: path, encoding: .utf8)
                let output = arguments.value("--output") ?? CatalogSwiftGenerator.outputPath
                try write(CatalogSwiftGenerator.generate(catalog: catalog, json: json), to: output)
                if !arguments.has("--quiet") { context.stdout.line("wrote \(output)") }
                return .success
            }
        )
    }

    static let catalogOption = OptionSpec.value("--catalog", "file", "The catalog to read (default: \(defaultPath)).")

    static func singleFile(_ arguments: ParsedArguments) throws(CLIError) -> String {
        guard arguments.positionals.count <= 1 else {
            throw .usage("catalog check takes at most one file, got \(arguments.positionals.count)")
        }
        return arguments.positionals.first ?? defaultPath
    }

    /// Reads and checks a catalog file, mapping failures to exit codes 66 and 65.
    static func load(_ path: String) throws(CLIError) -> Catalog {
        guard let data = FileManager.default.contents(atPath: path) else {
            let hint =
                path == defaultPath ? " Run from the package root, or pass the catalog file." : " Check the path."
            throw CLIError(.missingInput, "cannot read the catalog at \(path).\(hint)")
        }
        do {
            return try Catalog.load(from: data)
        } catch {
            throw CLIError(.badInput, "\(path): \(error.description)")
        }
    }

    static func write(_ text: String, to path: String) throws(CLIError) {
        do {
            // Through OutputFile: a regular file is replaced atomically keeping its mode, a link is
            // written through, a device or FIFO written to, never replaced.
            let file = try OutputFile(path: path)
            try file.write(Array(text.utf8))
            try file.commit()
        } catch let error as OutputFileError {
            throw CLIError(error)
        } catch {
            throw CLIError(
                .cannotCreateOutput, "cannot write \(path): \(error). Check that the folder exists and is writable.")
        }
    }
}
