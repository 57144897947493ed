import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `recorder-crash-helper` executable built next to the test binary, run as a real child process
/// (a test target that uses it depends on `recorder-crash-helper`, so it is built first). Started
/// with ``TestChild``: it gets its two pipes and its error file, no other descriptor of the tests.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: every property is immutable after init; SpawnedProcess and Pipe are thread-safe for this use.
    /// The child.
    public let process: SpawnedProcess
    /// The child's standard output.
    public let output = Pipe()
    /// The child's standard input.
    public let input = Pipe()
    /// The file the child's standard error goes to.
    public let errors: URL

    /// Where the helper executable is (beside the test binary).
    public static func helperURL() throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            executable.deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ].map { $0.appendingPathComponent("recorder-crash-helper") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw HelperMissing(searched: candidates.map(\.path))
        }
        return found
    }

    struct HelperMissing: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "recorder-crash-helper not found (looked in \(searched)); build it with `swift build` before the tests."
        }
    }

    /// Starts the helper with `arguments`, its standard error going to the file `errors`.
    public init(_ arguments: [String], errorsTo errors: URL) throws {
        self.errors = errors
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorFile = open(errors.path, O_WRONLY | O_CLOEXEC)
        guard errorFile >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(errorFile) }
        let child = try TestChild.spawn(
            try Self.helperURL(), arguments, input: input.fileHandleForReading.fileDescriptor,
            output: output.fileHandleForWriting.fileDescriptor, error: errorFile)
        process = SpawnedProcess(child)
        // The child's ends are its own now: closed here once, so that reading stdout ends when the child does.
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
    }

    /// Reads stdout to end of file off the cooperative pool.
    public func readAll() async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: self.output.fileHandleForReading.readDataToEndOfFile())
            }
        }
    }

    /// Reads one line of stdout off the cooperative pool.
    public func readLine() async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.nextLine() ?? "") }
        }
    }

    /// The next line of stdout without its newline (what is left at end of file; `nil` when nothing
    /// is), read a byte at a time so nothing past it is taken from the pipe; blocks.
    private func nextLine() -> String? {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == Data("\n".utf8) { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Reads stdout line by line and kills the child with SIGKILL as soon as `shouldKill` holds for
    /// the lines read so far; returns those lines (all of them when stdout ended first). Reading and
    /// killing happen on a thread outside Swift's cooperative pool, so the kill follows the line at
    /// once even while synchronous tests hold every thread of the pool.
    public func kill(when shouldKill: @escaping @Sendable (_ lines: [String]) -> Bool) async -> [String] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var lines: [String] = []
                while let line = self.nextLine() {
                    lines.append(line)
                    if shouldKill(lines) {
                        self.kill()
                        break
                    }
                }
                continuation.resume(returning: lines)
            }
        }
    }

    /// Writes `line` to the child's stdin; false when the child is gone (a killed child raises no SIGPIPE here).
    @discardableResult
    public func send(_ line: String) -> Bool {
        (try? PipeWriting.write(Data((line + "\n").utf8), to: input.fileHandleForWriting)) ?? false
    }

    /// Kills the child with SIGKILL (no cleanup runs in it).
    public func kill() { _ = Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Returns once the child has exited.
    public func waitForExit() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    /// What the child wrote to standard error.
    public var stderrText: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
}
