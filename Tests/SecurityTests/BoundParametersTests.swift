import Foundation
import PaywallTestSupport
import Testing

/// Checklist item: every SQL statement takes values only through bound parameters. The scanner
/// flags SQL text built from an expression; the allowlist below names each interpolation of a
/// constant that is acceptable and why. A new interpolation fails this test until it is either
/// rewritten with a bound parameter (`?` / `:name`) or added here with its justification.
struct BoundParametersTests {
    /// (file suffix, expression) → why it is not a value.
    static let allowlist: [String: String] = [
        // BEGIN DEFERRED/IMMEDIATE/EXCLUSIVE: a TransactionKind enum case's raw value, a keyword that
        // cannot be bound (SQLite binds values, not keywords).
        "PaywallSQLite/Database.swift | kind.rawValue": "TransactionKind keyword",
        // PRAGMA user_version = N: pragmas take no bound parameters; N is an Int computed by the
        // migrator (from the count of migrations applied), never input.
        "PaywallSQLite/Migrator.swift | version": "integer schema version",
        // The same pragma in the test support that writes count-based stores of old versions.
        "PaywallTestSupport/LegacyStore.swift | index + 1": "integer schema version",
        // PRAGMA application_id = N on a new database: N is the Int32 constant of the migrator's
        // DatabaseIdentity (Schema.identity), never input.
        "PaywallSQLite/Migrator.swift | identity.applicationID": "integer application id constant",
        // The list of column names of the events table, a static constant array of identifiers
        // (identifiers cannot be bound).
        "PaywallStore/Importer+Database.swift | Self.requiredSourceColumns.joined(separator: \", \")":
            "constant column list",
        // The live statements on `events` are built once (static lets, prepared and cached) from the
        // one column list, EventColumn: constant identifiers (column names from EnvelopeField and the
        // generated PropertyName, with an optional `e.` alias) and numbered placeholders `?1…?16`
        // computed from the enum's cases; every value is bound.
        "PaywallStore/EventWriter.swift | EventColumn.list(EventColumn.allCases)": "constant column list",
        "PaywallStore/EventWriter.swift | EventColumn.allCases.map { \"?\\($0.parameter)\" }.joined(separator: \", \")":
            "numbered placeholders from constants",
        "PaywallStore/EventWriter.swift | EventColumn.list()": "constant column list",
        "PaywallStore/SQLiteOutbox.swift | EventColumn.list(prefix: \"e.\")": "constant column list",
        "PaywallStore/SQLiteUploadQueue.swift | EventColumn.list(prefix: \"e.\")": "constant column list",
        "PaywallReports/Exporter+Tables.swift | EventColumn.list(prefix: \"e.\")": "constant column list",
        // The reports' fold reads the columns of its FoldColumns enum, named by EventColumn (or `rowid`).
        "PaywallReports/PresentationBatch.swift | FoldColumns.allCases.map { $0.column?.columnName ?? \"rowid\" }.joined(separator: \", \")":
            "constant column list",
        // The NDJSON export's columns: `e.name` for each EventColumn (constant identifiers), and
        // the events filter and conditions the table export shares (constant SQL, values bound).
        "PaywallReports/Exporter+NDJSON.swift | Self.ndjsonColumns": "constant column list",
        "PaywallReports/Exporter+NDJSON.swift | ndjsonSelectSQL": "constant SQL fragment",
        "PaywallReports/Exporter+NDJSON.swift | eventsFilterSQL": "constant SQL fragment",
        "PaywallReports/Exporter+NDJSON.swift | eventsConditionsSQL": "constant SQL fragment",
        "PaywallReports/Exporter+Tables.swift | eventsFilterSQL": "constant SQL fragment",
        // The events filter's conditions, shared by the whole export's query and the ranges' one.
        "PaywallReports/Exporter+Tables.swift | eventsConditionsSQL": "constant SQL fragment",
        "PaywallReports/Exporter+Tables.swift | eventsSelectSQL": "constant SQL fragment",
        // The export benchmark's sqlite3 shell command: the same constant column list.
        "paywall-bench/ReportBench.swift | EventColumn.list()": "constant column list",
        "paywall-bench/ReportBench.swift | Self.sqliteJSONMembers": "constant column list",
        // Help text of `export` showing a clickhouse-client example; never sent to SQLite.
        "paywall-analytics/Commands/ExportCommand.swift | Tool.name": "help text, not SQL",
        // PRAGMA cache_size = N restores the integer SQLite itself returned for `PRAGMA cache_size`
        // (pragmas take no bound parameters). Arrives with the reports branch.
        "PaywallReports/Rollup.swift | cacheSize": "integer read back from SQLite",
        "PaywallReports/SubscriptionState.swift | table": "constant table names (ReportSchema.subscriptionStateTables)",
        "PaywallReports/SubscriptionState.swift | cacheSize": "integer read back from SQLite",
        "PaywallReports/SubscriptionState.swift | SubscriptionState.eventColumns": "constant column list",
        // PRAGMA cache_size for an import: -KiB computed from an Int byte count (ImportCache, from file
        // sizes), and the integer SQLite returned for `PRAGMA cache_size` when it is put back.
        "PaywallStore/ImportCache.swift | bytes / 1_024": "integer cache size from file sizes",
        "PaywallStore/ImportCache.swift | previous": "integer read back from SQLite",
        // PRAGMA journal_size_limit = N for a checkpointer with a WAL limit: N is an Int of bytes computed
        // from the limit (an Int) and the page size SQLite returned.
        "PaywallSQLite/BackgroundCheckpointer.swift | restart * frame": "integer byte count from Ints",
        // The key experiment's cache size: an Int computed by the benchmark.
        "paywall-bench/ImportKeyExperiment.swift | cacheBytes / 1_024": "integer cache size, benchmark",
        // The sqlite3 baseline of the import benchmark, given the import's cache: an Int from ImportCache.
        "paywall-bench/ImportBench.swift | bytes / 1_024": "integer cache size, benchmark",
        // The multi-row merge of the rollup: rollup_merge_presentation.sql with its VALUES row repeated
        // as numbered placeholders `(?1, …, ?14), (?15, …)` computed from two integer constants; every
        // value is bound.
        "PaywallReports/Rollup.swift | + rows.joined(separator": "numbered placeholders from constants",
        // The import of another store's file reads its delivery state with a SELECT assembled from
        // constants for the source's layout (Importer+SourceDeliveries.sourceSelect): the constant
        // column list, and fixed join and CASE fragments chosen by booleans read from the source's
        // schema (which columns exist); every value (rowids, limits) is bound.
        "PaywallStore/Importer+SourceDeliveries.swift | columns": "constant column list",
        "PaywallStore/Importer+SourceDeliveries.swift | joins": "constant join fragment per source layout",
        "PaywallStore/Importer+SourceDeliveries.swift | state": "constant CASE fragment per source layout",
        // The fleet test's checks: a constant column list, and each delivery state's constant predicate
        // (FleetDeliveryStates' static cases); the attached path is bound.
        "paywall-fleet/FleetChecks.swift | columns": "constant column list, test tool",
        "paywall-fleet/FleetDeliveryStates.swift | state.predicate": "constant predicate of a static case, test tool",
    ]

    static func key(_ finding: SQLInterpolationScanner.Finding) -> String { "\(finding.file) | \(finding.expression)" }

    @Test func noSQLInSourcesIsBuiltFromAValue() throws {
        // The product (Sources) and the tools beside it (Tools), each file named from its folder.
        let package = Golden.packageRoot(from: #filePath)
        let findings = try ["Sources", "Tools"].flatMap {
            try SQLInterpolationScanner.scan(root: package.appendingPathComponent($0))
        }
        let unexplained = findings.filter { Self.allowlist[Self.key($0)] == nil }
        #expect(
            unexplained.isEmpty,
            "SQL built from values (bind them instead):\n\(unexplained.map(\.description).joined(separator: "\n"))")
        // Entries matching nothing are reported, not failed: some arrive with branches not merged yet.
        let used = Set(findings.map(Self.key))
        let unused = Self.allowlist.keys.filter { !used.contains($0) }.sorted()
        if !unused.isEmpty { print("allowlist entries matching nothing here (remove once merged and gone): \(unused)") }
    }
}

/// The scanner itself: it must catch each way of building SQL from a value, and stay quiet otherwise.
struct SQLInterpolationScannerTests {
    func findings(_ source: String) -> [String] {
        SQLInterpolationScanner.scan(source: source, file: "t.swift").map(\.expression)
    }

    @Test(
        arguments: [
            (#"db.execute("DELETE FROM events WHERE id = '\(id)'")"#, ["id"]),
            (
                #"let sql = "SELECT * FROM events WHERE user_id = \(user.id) AND x = \(f(g("a)")))""#,
                ["user.id", #"f(g("a)"))"#]
            ),
            ("let sql = \"\"\"\n    SELECT count(*)\n    FROM events WHERE name = '\\(name)'\n    \"\"\"", ["name"]),
            (##"let sql = #"UPDATE outbox SET state = '\#(state)' WHERE x = "q""#"##, ["state"]),
            (#"try db.run("INSERT INTO meta (key, value) VALUES ('k', '" + value + "')", [])"#, ["+ value"]),
            (#"let q = prefix + " WHERE placement = ?""#, ["+ prefix"]),
            (#"execute("PRAGMA user_version = \(version)")"#, ["version"]),
        ] as [(String, [String])])
    func plantedSQLBuiltFromAValueIsFound(source: String, expected: [String]) {
        #expect(findings(source) == expected, "\(source)")
    }

    @Test(arguments: [
        #"db.run("DELETE FROM events WHERE id = ?1", [.text(id)])"#,
        #"print("selected \(count) rows where you asked")"#,  // prose, lowercase
        #"// db.execute("DELETE FROM events WHERE id = \(id)")"#,  // a comment
        "/* \"SELECT \\(x)\" */ let a = 1",  // a block comment
        ##"let raw = #"SELECT '\(not interpolated)' FROM t"#"##,  // raw string: \( is text
        #"let sql = "SELECT 1 " + "FROM t WHERE x = ?""#,  // literal + literal
        #"throw Failure("cannot open \(path): \(reason)")"#,
    ])
    func boundOrNonSQLTextIsNotFlagged(source: String) {
        #expect(findings(source).isEmpty, "\(source)")
    }

    @Test func theWholeSourceTreeIsActuallyScanned() throws {
        // Given the real Sources folder, the scanner sees the SQL literals the store is known to contain
        let root = Golden.packageRoot(from: #filePath).appendingPathComponent("Sources/PaywallSQLite/Migrator.swift")
        let source = try String(contentsOf: root, encoding: .utf8)
        let literals = SQLInterpolationScanner.literals(in: Array(source.unicodeScalars)).filter {
            SQLInterpolationScanner.looksLikeSQL($0.text)
        }
        #expect(literals.contains { $0.text.hasPrefix("PRAGMA user_version = ") })
    }
}
