import Foundation
import PaywallCore
import PaywallTestSupport
import Testing

/// Paths inside the repository (the test target's source folder and the repository root).
enum Repository {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let root = testsFolder.deletingLastPathComponent().deletingLastPathComponent()
    static func golden(_ set: String, _ file: String) -> URL {
        testsFolder.appendingPathComponent("Golden").appendingPathComponent(set).appendingPathComponent(file)
    }
}

/// Runs a process and returns (exit status, stdout, stderr).
@discardableResult
func runProcess(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> (Int32, String, String) {
    // CommandRunner starts it with TestChild: no descriptor of another test reaches it.
    let result = try CommandRunner(executable: URL(fileURLWithPath: executable)).runBlocking(arguments, stdin: stdin)
    return (result.status, result.stdout, result.stderr)
}

/// Runs the checkers' Python (``Python``, resolved in PaywallTestSupport) with a script from
/// `scripts/`, failing clearly (not skipping) when Python or its packages are missing.
func runPython(_ script: String, _ arguments: [String], stdin: Data? = nil) throws -> (Int32, String, String) {
    let path = Repository.testsFolder.appendingPathComponent("scripts").appendingPathComponent(script).path
    let (executable, leading) = Python.command()
    return try runProcess(executable.path, leading + [path] + arguments, stdin: stdin)
}

/// A diff of two texts (``Golden/diff(expected:actual:context:limit:)``), for golden-file failures.
func unifiedDiff(expected: String, actual: String) -> String {
    Golden.diff(expected: expected, actual: actual) ?? "(no difference)"
}

/// Expects the file at `actual` to equal the golden file, printing a diff when it does not.
func expectGolden(_ set: String, _ file: String, in folder: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    let actual = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
    // PAYWALL_WRITE_GOLDEN=1 writes the actual file as the golden one (review the diff, then commit it)
    if ProcessInfo.processInfo.environment["PAYWALL_WRITE_GOLDEN"] == "1" {
        try Data(actual.utf8).write(to: Repository.golden(set, file))
    }
    let expected = try String(contentsOf: Repository.golden(set, file), encoding: .utf8)
    #expect(
        actual == expected,
        "\(file) differs from Golden/\(set)/\(file):\n\(unifiedDiff(expected: expected, actual: actual))",
        sourceLocation: sourceLocation)
}
