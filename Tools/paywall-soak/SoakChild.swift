import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process whose output is collected on a Dispatch thread; can be SIGKILLed at any moment.
final class SoakChild: @unchecked Sendable {
    // @unchecked: `output` is written by the reader thread and read only after `group.wait()`.
    private let process = Process()
    private let group = DispatchGroup()
    private var output = Data()
    private var errors = Data()

    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().async(group: group) { self.output = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { self.errors = err.fileHandleForReading.readDataToEndOfFile() }
    }

    /// SIGKILL: no chance to clean up, as a crash or `kill -9` would.
    func kill() { _ = Glibc.kill(process.processIdentifier, SIGKILL) }

    /// Waits for exit; returns the status (128 + signal when killed), standard output and standard error.
    func wait() -> (status: Int32, stdout: String, stderr: String) {
        process.waitUntilExit()
        group.wait()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}
