/// The tool's exit codes (sysexits.h values; docs/cli.md lists them).
enum ExitCode: Int32, Sendable {
    case success = 0
    case usage = 64
    case badInput = 65
    case missingInput = 66
    case unavailable = 69
    case internalError = 70
    case cannotCreateOutput = 73
    case ioError = 74
    case temporaryFailure = 75
}

/// An error the tool reports to the user: a message that says what went wrong and what to do,
/// and the exit code it maps to.
struct CLIError: Error, CustomStringConvertible {
    /// The exit code.
    var code: ExitCode
    /// What went wrong and what to do.
    var message: String
    /// Whether to print the command's usage line after the message (usage errors).
    var showsUsage: Bool

    init(_ code: ExitCode, _ message: String, showsUsage: Bool = false) {
        self.code = code
        self.message = message
        self.showsUsage = showsUsage
    }

    /// A usage error (exit 64) followed by the usage line.
    static func usage(_ message: String) -> CLIError { CLIError(.usage, message, showsUsage: true) }

    var description: String { message }
}
