import Foundation
import PaywallLock

/// A text stream the tool writes to (stdout or stderr), safe to use from any task.
final class TextOutput: Sendable {
    private let handle: FileHandle
    /// Serializes writes so lines from concurrent tasks do not interleave.
    private let lock = Lock(())

    init(_ handle: FileHandle) { self.handle = handle }

    /// Writes `text` as UTF-8, without adding a newline.
    func write(_ text: String) {
        lock.withLock { _ in try? handle.write(contentsOf: Data(text.utf8)) }
    }

    /// Writes `text` and a newline.
    func line(_ text: String = "") { write(text + "\n") }
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
            stdout: TextOutput(.standardOutput),
            stderr: TextOutput(.standardError),
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
        let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
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
