import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `paywall-analytics serve`, run as an operator runs it: own process, stdout and stderr
/// into files (so every byte it wrote can be searched), the port read from its startup line.
/// Started with ``TestChild``: no other descriptor of the tests (another test's socket or pipe)
/// reaches it. `@unchecked Sendable`: every stored property is a constant set in `init`;
/// `SpawnedProcess` is thread-safe.
public final class CollectorProcess: @unchecked Sendable {
    /// The running `serve` process.
    public let process: SpawnedProcess
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Where its standard output goes.
    public let stdoutPath: String
    /// Where its standard error goes.
    public let stderrPath: String

    /// Starts `serve --listen 127.0.0.1:0 --db <db>` plus `arguments`; waits for the listening line.
    /// With a `wrapper` (e.g. `["/bin/sh", "-c", "ulimit -f 64; exec \"$0\" \"$@\""]`), the wrapper
    /// is run with the binary and its arguments after its own.
    public init(
        db: String, folder: TemporaryDirectory, arguments: [String] = [], environment: [String: String] = [:],
        tag: String = UUID().uuidString, wrapper: [String] = []
    ) throws {
        let binary = try CommandRunner(product: "paywall-analytics").executable
        stdoutPath = folder.path("serve-\(tag).stdout")
        stderrPath = folder.path("serve-\(tag).stderr")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let serve = ["serve", "--listen", "127.0.0.1:0", "--db", db] + arguments
        let (executable, all) =
            wrapper.first.map { (URL(fileURLWithPath: $0), Array(wrapper.dropFirst()) + [binary.path] + serve) }
            ?? (binary, serve)
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "REVENUECAT_API_KEY")
        env.merge(environment) { _, new in new }
        let out = open(stdoutPath, O_WRONLY | O_CLOEXEC)
        let err = open(stderrPath, O_WRONLY | O_CLOEXEC)
        defer {
            if out >= 0 { close(out) }
            if err >= 0 { close(err) }
        }
        guard out >= 0, err >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        process = SpawnedProcess(
            try TestChild.spawn(executable, all, environment: env, output: out, error: err))
        let deadline = Date().addingTimeInterval(60)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            found = Self.port(in: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
            if found == nil { usleep(50_000) }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(text)"])
        }
        port = found
    }

    /// The port in `serve`'s startup line, if `text` holds it.
    public static func port(in text: String) -> Int? {
        guard let range = text.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Everything it wrote to standard error so far.
    public var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the exit; returns the status (128 + n when killed) and the seconds it took.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> (status: Int32, seconds: Double) {
        let started = Date()
        kill(process.processIdentifier, signal)
        while process.isRunning, Date().timeIntervalSince(started) < timeout { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.exitStatus, Date().timeIntervalSince(started))
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
