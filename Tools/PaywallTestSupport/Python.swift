import Foundation

/// The one place tests and benchmarks find Python: the checkers' interpreter (DuckDB, chDB, pandas,
/// Pillow, prometheus-client), never whatever `python3` happens to be first on `PATH`.
///
/// Resolution order:
/// 1. `PAYWALL_PYTHON`, which `scripts/test` exports (the virtual environment it made);
/// 2. that same virtual environment, `.build/checkers-venv/bin/python3`, when `swift test` is run
///    directly after `scripts/test` ran once;
/// 3. `python3` on `PATH`, for a contributor who installed the checkers themselves.
///
/// ```swift
/// let result = try await Python.runner().run([script, csvPath])
/// ```
public enum Python {
    /// The name of the checkers' virtual environment folder under `.build/`.
    public static let venvFolder = ".build/checkers-venv"

    /// The interpreter's path, or `nil` when only a `python3` on `PATH` is left (rule 3).
    public static func interpreterPath(filePath: String = #filePath) -> String? {
        if let chosen = ProcessInfo.processInfo.environment["PAYWALL_PYTHON"], !chosen.isEmpty { return chosen }
        let venv = Golden.packageRoot(from: filePath).appendingPathComponent(venvFolder + "/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
    }

    /// The executable and leading arguments that start the interpreter, for `Process`.
    public static func command(filePath: String = #filePath) -> (executable: URL, arguments: [String]) {
        if let path = interpreterPath(filePath: filePath) { return (URL(fileURLWithPath: path), []) }
        return (URL(fileURLWithPath: "/usr/bin/env"), ["python3"])
    }

    /// A `Process` that will run the interpreter with `arguments` (not started yet).
    public static func process(_ arguments: [String], filePath: String = #filePath) -> Process {
        let (executable, leading) = command(filePath: filePath)
        let process = Process()
        process.executableURL = executable
        process.arguments = leading + arguments
        return process
    }

    /// A ``CommandRunner`` for the interpreter; pass the script and its arguments to `run`.
    public static func runner(filePath: String = #filePath) -> PythonRunner {
        PythonRunner(command: command(filePath: filePath))
    }

    /// What to tell a reader when a checker is missing.
    public static let installAdvice =
        "run scripts/test once (it installs the Python checkers into \(venvFolder)), "
        + "or set PAYWALL_PYTHON to a python3 that has duckdb, chdb, pandas, pillow and prometheus-client"
}

/// Runs the checkers' interpreter with arguments, capturing its output (see ``Python``).
public struct PythonRunner: Sendable {
    let command: (executable: URL, arguments: [String])

    /// Runs `python3 arguments…` (through the resolved interpreter) and waits for it.
    public func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        directory: URL? = nil
    ) async throws -> CommandRunner.Output {
        try await CommandRunner(executable: command.executable)
            .run(command.arguments + arguments, stdin: stdin, environment: environment, directory: directory)
    }

    /// The blocking form of ``run(_:stdin:environment:directory:)``.
    public func runBlocking(_ arguments: [String], stdin: Data? = nil) throws -> CommandRunner.Output {
        try CommandRunner(executable: command.executable).runBlocking(command.arguments + arguments, stdin: stdin)
    }
}
