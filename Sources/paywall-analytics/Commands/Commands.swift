/// Every subcommand, in the order `--help` lists them.
enum Commands {
    static var all: [CommandSpec] {
        [
            DemoCommand.spec,
            ImportCommand.spec,
            StatsCommand.spec,
            ForwardCommand.spec,
            UploadCommand.spec,
            ReportCommand.spec,
            ExportCommand.spec,
            ServeCommand.spec,
            KeysCommand.spec,
            CatalogCommand.spec,
        ]
    }
}
