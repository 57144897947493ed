import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process of the fleet with its standard output and error in files (so what it wrote can
/// be searched afterwards), that can be SIGKILLed at any moment.
final class FleetChild: @unchecked Sendable {
    // @unchecked: `process` is only touched from the driver's thread.
    private let process = Process()
    /// The file holding the child's standard output.
    let stdoutPath: String
    /// The file holding the child's standard error.
    let stderrPath: String

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], logs: String) throws {
        stdoutPath = logs + ".out"
        stderrPath = logs + ".err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "REVENUECAT_API_KEY")
        env.removeValue(forKey: "PAYWALL_COLLECTOR_KEY")
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        FleetChildren.add(process.processIdentifier)
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The last `count` characters of standard error, for a failure message.
    func stderrTail(_ count: Int = 600) -> String { String(stderr.suffix(count)) }

    /// Sends `signal` and waits for the exit; returns the status (128 + n when killed by a signal).
    @discardableResult
    func stop(_ signal: Int32 = SIGKILL) -> Int32 {
        if process.isRunning { _ = kill(process.processIdentifier, signal) }
        return wait()
    }

    /// Waits for the exit; returns the status (128 + n when killed by a signal).
    func wait() -> Int32 {
        process.waitUntilExit()
        FleetChildren.remove(process.processIdentifier)
        return process.terminationReason == .uncaughtSignal
            ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Polls standard output every 20 ms until `found` holds for it, the process exits, or
    /// `seconds` pass; returns the output when `found` held.
    func waitForOutput(seconds: Double, _ found: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let text = stdout + stderr
            if found(text) { return text }
            if !process.isRunning { return found(stdout + stderr) ? stdout + stderr : nil }
            usleep(20_000)
        }
        return nil
    }

    deinit {
        if process.isRunning {
            _ = kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
