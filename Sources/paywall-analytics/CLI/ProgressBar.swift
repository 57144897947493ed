import Foundation

/// A one-line progress bar on stderr, drawn only when stderr is a terminal (and not `--quiet`),
/// redrawn at most ten times a second.
final class ProgressBar: @unchecked Sendable {
    private let output: TextOutput
    private let enabled: Bool
    /// Guards `lastDraw` and `drawn`.
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(context: CommandContext, arguments: ParsedArguments) {
        output = context.stderr
        enabled = context.showsProgress(arguments)
    }

    /// Redraws with `label`, and a bar when `fraction` is known.
    func update(_ label: String, fraction: Double?) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        drawn = true
        var line = "\r\u{1B}[2K"
        if let fraction {
            let filled = Int((fraction * 30).rounded(.down))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled) + "] "
            line += String(format: "%3d%% ", Int(fraction * 100))
        }
        output.write(line + label)
    }

    /// Clears the bar so the summary starts on a clean line.
    func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { output.write("\r\u{1B}[2K") }
        drawn = false
    }
}
