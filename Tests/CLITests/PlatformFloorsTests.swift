import Foundation
import PaywallTestSupport
import Testing

/// `scripts/check-platform-floors`, the CI check that nothing reaches above iOS 16 / macOS 13 /
/// tvOS 16 / watchOS 9 / visionOS 1 or SQLite 3.39 (this machine cannot build for Apple platforms).
struct PlatformFloorsTests {
    static let script = Golden.packageRoot().appendingPathComponent("scripts/check-platform-floors").path

    func check(_ root: String) async throws -> CommandRunner.Output {
        try await Python.runner().run([Self.script, root])
    }

    @Test func theRepositoryStaysWithinTheFloors() async throws {
        let run = try await check(Golden.packageRoot().path)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("stay within the floors"))
    }

    @Test func eachKindOfOverreachIsFound() async throws {
        // Given a package that reaches above its floors in every way the check knows
        let scratch = TemporaryDirectory(prefix: "cli")
        let root = URL(fileURLWithPath: scratch.path("package"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Sources/Lib"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("reports"), withIntermediateDirectories: true)
        try Data("let package = Package(platforms: [.macOS(.v15), .iOS(.v18)])\n".utf8)
            .write(to: root.appendingPathComponent("Package.swift"))
        try Data(
            #"""
            import Synchronization
            let lock = Mutex(0)
            @available(macOS 14, iOS 17, *)
            func newer() {}
            let sql = "SELECT concat(a, b) FROM t"
            let query = """
                SELECT string_agg(name ORDER BY name) FROM events
                """
            let fine = "SELECT unixepoch(), payload ->> '$.x' FROM t"   // 3.38: within the floor
            // import Synchronization in a comment is not code
            """#.utf8
        ).write(to: root.appendingPathComponent("Sources/Lib/Lib.swift"))
        try Data("-- rank ceil(p/100 * n), in a comment: fine\nSELECT unhex(id), floor(open_s) FROM events;\n".utf8)
            .write(to: root.appendingPathComponent("reports/q.sql"))
        // When the check runs
        let run = try await check(root.path)
        // Then it fails and names every finding, with its place
        #expect(run.status == 1)
        for fragment in [
            "Package.swift: platforms must be", "Lib.swift:1: import Synchronization",
            "Lib.swift:2: Synchronization.Mutex", "Lib.swift:3: availability above the floors (macOS 14)",
            "Lib.swift:5: SQLite function concat()", "string_agg() needs SQLite 3.44",
            "ORDER BY inside an aggregate call", "reports/q.sql: SQLite function unhex() needs SQLite 3.41",
            "reports/q.sql: SQLite math function floor() exists only with SQLITE_ENABLE_MATH_FUNCTIONS",
        ] {
            #expect(run.stdout.contains(fragment), "missing \(fragment) in:\n\(run.stdout)")
        }
        #expect(
            !run.stdout.contains("unixepoch") && !run.stdout.contains("Lib.swift:10") && !run.stdout.contains("ceil"))
        #expect(run.stdout.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 9)
    }
}
