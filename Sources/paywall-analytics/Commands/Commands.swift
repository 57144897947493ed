/// Every subcommand, in the order `--help` lists them.
enum Commands {
    static var all: [CommandSpec] {
        [
            ImportCommand.spec,
            StatsCommand.spec,
            CatalogCommand.spec,
        ]
    }
}
