import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a built executable of this package as a user would, capturing its output. The child is
/// started with ``TestChild``: it gets its standard input, output and error and no other
/// descriptor of the test process.
public struct CommandRunner: Sendable {
    /// What a finished run produced.
    public struct Output: Sendable {
        /// The exit status (or 128 + signal number when killed).
        public var status: Int32
        /// Standard output as UTF-8.
        public var stdout: String
        /// Standard error as UTF-8.
        public var stderr: String
    }

    /// The executable.
    public let executable: URL

    /// Runs any executable (a system tool such as chromium or python3).
    public init(executable: URL) { self.executable = executable }

    /// Finds the built executable `name` next to the test bundle (`.build/<config>/`).
    public init(product name: String = "paywall-analytics", filePath: String = #filePath) throws {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["PAYWALL_ANALYTICS_BIN"], name == "paywall-analytics" {
            candidates.append(URL(fileURLWithPath: override))
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.appendingPathComponent(name))
            folder.deleteLastPathComponent()
        }
        candidates.append(Golden.packageRoot(from: filePath).appendingPathComponent(".build/debug/\(name)"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "cannot find the built \(name) (looked in \(candidates.map(\.path))); run `swift build` first"
                ])
        }
        executable = found
    }

    /// Runs the executable with `arguments`, optional standard input, extra environment and working
    /// directory; waits for it to exit. The waiting happens on a Dispatch thread, never on the
    /// concurrency pool (two threads on a 2-core machine), so parallel tests are not starved.
    /// `standardInput`, when given, is the child's standard input instead of a pipe carrying `stdin`
    /// (a socket the test keeps feeding while the child runs).
    public func run(
        _ arguments: [String], stdin: Data? = nil, standardInput: FileHandle? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try self.runBlocking(
                            arguments, stdin: stdin, standardInput: standardInput, environment: environment,
                            directory: directory)
                    })
            }
        }
    }

    /// The blocking form of ``run(_:stdin:standardInput:environment:directory:)``, for synchronous callers.
    public func runBlocking(
        _ arguments: [String], stdin: Data? = nil, standardInput: FileHandle? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) throws -> Output {
        // Started through TestChild: the child gets its three pipes and nothing else of this
        // process; each end here is closed exactly once, by this function.
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        let out = try TestChild.pipe()
        let err = try TestChild.pipe()
        let input = try TestChild.pipe()
        let child: TestChild
        do {
            child = try TestChild.spawn(
                executable, arguments, environment: env, directory: directory,
                input: standardInput?.fileDescriptor ?? input.reader, output: out.writer, error: err.writer)
        } catch {
            for end in [out.reader, out.writer, err.reader, err.writer, input.reader, input.writer] { close(end) }
            throw error
        }
        // The child's ends are its own now: closing them here lets the readers below see end of file.
        close(out.writer)
        close(err.writer)
        close(input.reader)
        // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        DispatchQueue.global().async(group: group) {
            outData = TestChild.readToEnd(out.reader)
            close(out.reader)
        }
        DispatchQueue.global().async(group: group) {
            errData = TestChild.readToEnd(err.reader)
            close(err.reader)
        }
        // A child that exits before reading all of it is an outcome to report, not a SIGPIPE of the tests.
        var writeError: (any Error)?
        if let stdin {
            do { try PipeWriting.write(stdin, to: input.writer) } catch { writeError = error }
        }
        close(input.writer)
        let status = child.waitForExit()
        group.wait()
        if let writeError { throw writeError }
        return Output(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
