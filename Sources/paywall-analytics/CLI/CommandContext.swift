import Foundation
import PaywallLock

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Musl)
    import Musl
    private let systemWrite = Musl.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// A text stream the tool writes to (stdout or stderr), safe to use from any task. A failed
/// write (a full disk, a closed pipe, `/dev/full`) is remembered, so the tool can exit 74 instead
/// of 0 with its output lost; later writes are skipped.
final class TextOutput: Sendable {
    private let descriptor: Int32
    /// Serializes writes so lines from concurrent tasks do not interleave; holds the errno of the
    /// first failed write.
    private let state = Lock<Int32?>(nil)

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes `text` as UTF-8, without adding a newline.
    func write(_ text: String) {
        state.withLock { failure in
            guard failure == nil else { return }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    /// Writes `text` and a newline.
    func line(_ text: String = "") { write(text + "\n") }

    /// Why the first failed write failed (`No space left on device`), `nil` while every write succeeded.
    var failure: String? { state.withLock { $0 }.map { String(cString: strerror($0)) } }
}

/// What a command runs with: the environment, the output streams and terminal facts.
struct CommandContext: Sendable {
    /// The process environment.
    var environment: [String: String]
    /// Standard output: results, tables, help.
    var stdout: TextOutput
    /// Standard error: errors, warnings, progress.
    var stderr: TextOutput
    /// Whether standard error is a terminal (progress is drawn only then).
    var stderrIsTerminal: Bool

    /// The real process's context.
    static func process() -> CommandContext {
        CommandContext(
            environment: ProcessInfo.processInfo.environment,
            stdout: TextOutput(descriptor: STDOUT_FILENO),
            stderr: TextOutput(descriptor: STDERR_FILENO),
            stderrIsTerminal: isatty(STDERR_FILENO) == 1
        )
    }

    /// The database path: `--db`, else `$PAYWALL_ANALYTICS_DB`, else the per-user data directory.
    func databasePath(_ arguments: ParsedArguments) -> String {
        if let path = arguments.value("--db"), !path.isEmpty { return path }
        if let path = environment["PAYWALL_ANALYTICS_DB"], !path.isEmpty { return path }
        return Self.defaultDatabaseURL(environment: environment).path
    }

    /// `$XDG_DATA_HOME/paywall-analytics/events.sqlite` (Linux: `~/.local/share/…`), or
    /// `~/Library/Application Support/PaywallAnalytics/events.sqlite` on Apple platforms.
    static func defaultDatabaseURL(environment: [String: String]) -> URL {
        #if os(Linux)
            let base =
                environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            return base.appendingPathComponent("paywall-analytics/events.sqlite")
        #else
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            return base.appendingPathComponent("PaywallAnalytics/events.sqlite")
        #endif
    }

    /// Whether progress may be drawn: stderr is a terminal and `--quiet` was not given.
    func showsProgress(_ arguments: ParsedArguments) -> Bool { stderrIsTerminal && !arguments.has("--quiet") }
}
