import Foundation
import PaywallCatalogTools
import PaywallCore
import PaywallTestSupport
import Testing

/// The reports spell no catalog value of their own: the native engine matches the generated enums
/// exhaustively (a value the catalog adds fails to compile there), and the SQL reports are checked
/// against the generated enums here (a value they do not count fails a test).
struct CatalogChangeTests {
    static let root = Golden.packageRoot()

    static func sql(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("reports/\(name).sql"), encoding: .utf8)
    }

    /// The values among `values` that `sql` never compares with (as the SQL literal `'value'`).
    static func unhandled(_ values: [String], in sql: String) -> [String] {
        values.filter { !sql.contains("'\($0)'") }
    }

    /// The `via` values a dismissal can have: all but those the catalog's `exactly_when` rule ties
    /// to other results (`auto`).
    static func dismissalVias(_ catalog: Catalog) -> [String] {
        let tied = catalog.events.flatMap(\.rules).filter { $0.kind == "exactly_when" && $0.property == "via" }
            .flatMap { $0.values ?? [] }
        return (catalog.property(named: "via")?.values ?? []).filter { !tied.contains($0) }
    }

    /// The funnel's SQL for SQLite and for ClickHouse.
    static let funnels = ["conversion_funnel", "clickhouse/conversion_funnel"]

    @Test(arguments: funnels)
    func theFunnelSQLCountsEveryResult(_ funnel: String) throws {
        #expect(Self.unhandled(CloseResult.allCases.map(\.rawValue), in: try Self.sql(funnel)) == [])
    }

    @Test(arguments: funnels)
    func theFunnelSQLSplitsDismissalsByEveryVia(_ funnel: String) throws {
        let vias = Self.dismissalVias(.bundled)
        #expect(Set(vias).isSubset(of: CloseVia.allCases.map(\.rawValue)))
        #expect(!vias.isEmpty)
        #expect(Self.unhandled(vias, in: try Self.sql(funnel)) == [])
    }

    @Test(arguments: ["rollup_presentations", "clickhouse/presentations"])
    func thePresentationSQLFoldsEveryEvent(_ fold: String) throws {
        #expect(Self.unhandled(EventName.allCases.map(\.rawValue), in: try Self.sql(fold)) == [])
    }

    /// Given a scratch copy of the package whose catalog gains the `result` value `refunded` (code
    /// regenerated), When PaywallReports is built, Then it fails exactly where the native funnel
    /// counts results, and the SQL check above names the value.
    ///
    /// The scratch build compiles half the package from nothing (minutes on two cores), and inside the
    /// parallel suite it starved the other tests of CPU; `scripts/test` therefore runs it on its own,
    /// right after the suite (`PAYWALL_SCRATCH_BUILD_TESTS=1`).
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PAYWALL_SCRATCH_BUILD_TESTS"] == "1",
            "builds a scratch copy of the package: scripts/test runs it after the suite (PAYWALL_SCRATCH_BUILD_TESTS=1)"
        ))
    func aResultAddedToAScratchCatalogFailsWhereverTheReportsCountResults() async throws {
        // Given
        let scratch = TemporaryDirectory(prefix: "catalog-change")
        defer { scratch.remove() }
        for item in ["Package.swift", "Sources", "Tools", "Tests", "Examples", "catalog"] {
            try FileManager.default.copyItem(
                at: Self.root.appendingPathComponent(item), to: scratch.url.appendingPathComponent(item))
        }
        let json = try String(contentsOf: Self.root.appendingPathComponent("catalog/catalog.json"), encoding: .utf8)
        let values = CloseResult.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        #expect(json.components(separatedBy: "[\(values)]").count == 2, "the catalog lists result's values once")
        let changed = json.replacingOccurrences(of: "[\(values)]", with: "[\(values), \"refunded\"]")
        let catalog = try Catalog.load(from: Data(changed.utf8))
        let results = try #require(catalog.property(named: "result")?.values)
        #expect(results == CloseResult.allCases.map(\.rawValue) + ["refunded"])
        try changed.write(toFile: scratch.path("catalog/catalog.json"), atomically: true, encoding: .utf8)
        try CatalogSwiftGenerator.generate(catalog: catalog, json: changed)
            .write(toFile: scratch.path(CatalogSwiftGenerator.outputPath), atomically: true, encoding: .utf8)

        // When
        let swift = try #require(Self.swiftExecutable(), "no `swift` on PATH or in /opt/swift/usr/bin")
        // In a session of its own (`setsid --wait`, which also hands back the build's status): a
        // failing build cancels its compile jobs, and nothing of that may reach this test runner.
        let arguments = [
            "build", "--package-path", scratch.url.path, "--scratch-path", scratch.path(".build"),
            "--target", "PaywallReports",
        ]
        let setsid = URL(fileURLWithPath: "/usr/bin/setsid")
        let build =
            FileManager.default.isExecutableFile(atPath: setsid.path)
            ? try await CommandRunner(executable: setsid).run(["--wait", swift.path] + arguments)
            : try await CommandRunner(executable: swift).run(arguments)

        // Then the build fails, and every error is in the native funnel's switch over results
        let output = build.stdout + build.stderr
        #expect(build.status != 0, "the build passed with a result value nobody counts:\n\(output.suffix(4000))")
        let errors = output.split(separator: "\n").filter { $0.contains("error:") && $0.contains(".swift:") }
        let files = Set(
            errors.compactMap {
                $0.split(separator: ":").first.map { URL(fileURLWithPath: String($0)).lastPathComponent }
            })
        #expect(
            files == ["PresentationScan.swift"], "errors:\n\(errors.joined(separator: "\n"))\n\(output.suffix(4000))")
        #expect(errors.contains { $0.contains("must be exhaustive") }, "\(errors.joined(separator: "\n"))")
        // And the SQL reports' check names the value they do not count
        for funnel in Self.funnels {
            #expect(Self.unhandled(results, in: try Self.sql(funnel)) == ["refunded"], "\(funnel)")
        }
    }

    /// The `swift` driver: on `PATH`, else the toolchain's usual place on this machine.
    static func swiftExecutable() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/opt/swift/usr/bin", "/usr/bin"]
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent("swift") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
