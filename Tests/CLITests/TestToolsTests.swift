import Foundation
import PaywallTestSupport
import Testing

/// The tools the suite relies on are the ones `scripts/test` brings: the checkers' Python with every
/// package, and the system tools. A missing one fails here with the advice, not deep in another test.
struct TestToolsTests {
    @Test func theCheckersPythonImportsEveryChecker() async throws {
        let result = try await Python.runner().run([
            "-c", "import duckdb, chdb, pandas, PIL, prometheus_client, sys; print(sys.prefix)",
        ])
        #expect(result.status == 0, "the checkers' Python lacks a package: \(Python.installAdvice)\n\(result.stderr)")
    }

    @Test func theCheckersPythonIsTheVirtualEnvironmentWhenScriptsTestMadeOne() throws {
        // scripts/test exports PAYWALL_PYTHON; a direct `swift test` afterwards finds the same venv.
        let venv = Golden.packageRoot().appendingPathComponent(Python.venvFolder + "/bin/python3").path
        let chosen = ProcessInfo.processInfo.environment["PAYWALL_PYTHON"]
        if chosen != nil || FileManager.default.isExecutableFile(atPath: venv) {
            let path = try #require(Python.interpreterPath())
            #expect(path == (chosen ?? venv))
        } else {
            #expect(Python.interpreterPath() == nil)
        }
    }

    @Test(arguments: ["/usr/bin/sqlite3", "/usr/bin/time", "/usr/bin/chattr", "/usr/bin/script"])
    func aSystemToolTheTestsUseIsInstalled(path: String) {
        #expect(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing: run scripts/test once")
    }
}
