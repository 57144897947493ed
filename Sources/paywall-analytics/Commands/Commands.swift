/// Every subcommand, in the order `--help` lists them.
enum Commands {
    static var all: [CommandSpec] {
        [
            DemoCommand.spec,
            ImportCommand.spec,
            StatsCommand.spec,
            ForwardCommand.spec,
            ReportCommand.spec,
            ExportCommand.spec,
            ForgetCommand.spec,
            ServeCommand.spec,
            KeysCommand.spec,
            CatalogCommand.spec,
        ]
    }
}
