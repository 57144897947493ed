import Foundation
import PaywallTestSupport

/// The built `paywall-analytics serve`, run as an operator runs it: own process, stdout and stderr
/// into files (so every byte it wrote can be searched), the port read from its startup line.
final class CollectorProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    let stdoutPath: String
    let stderrPath: String

    /// Starts `serve --listen 127.0.0.1:0 --db <db>` plus `arguments`; waits for the listening line.
    init(db: String, folder: TemporaryDirectory, arguments: [String] = [], environment: [String: String] = [:],
         tag: String = UUID().uuidString) throws {
        let binary = try CommandRunner(product: "paywall-analytics").executable
        stdoutPath = folder.path("serve-\(tag).stdout")
        stderrPath = folder.path("serve-\(tag).stderr")
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = binary
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", db] + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "REVENUECAT_API_KEY")
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
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

    static func port(in text: String) -> Int? {
        guard let range = text.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    var stderrText: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits for the exit; returns the status (128 + n when killed) and the seconds it took.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> (status: Int32, seconds: Double) {
        let started = Date()
        kill(process.processIdentifier, signal)
        while process.isRunning, Date().timeIntervalSince(started) < timeout { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, Date().timeIntervalSince(started))
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
}
