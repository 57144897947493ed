import Foundation

/// The collector of the fleet: the built `paywall-analytics serve` on 127.0.0.1. The first start takes
/// a port from the OS (port 0); every restart binds that same port again (the collector sets
/// `SO_REUSEADDR`), so the installs' configured endpoint stays valid.
final class FleetCollector: @unchecked Sendable {
    // @unchecked: only the driver's thread starts, kills and reads it.
    let binary: URL
    let database: String
    let logs: String
    private(set) var child: FleetChild?
    private(set) var port = 0
    private(set) var starts = 0

    init(binary: URL, database: String, logs: String) {
        self.binary = binary
        self.database = database
        self.logs = logs
    }

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var isRunning: Bool { child?.isRunning ?? false }

    /// Starts `serve` and waits (at most `seconds`) for its listening line. A restart whose bind
    /// fails (the port is briefly unavailable) is retried until the time is up.
    func start(seconds: Double = 120) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var lastError = ""
        while Date() < deadline {
            starts += 1
            let listen = "127.0.0.1:\(port)"
            let child = try FleetChild(
                binary, ["serve", "--listen", listen, "--db", database],
                logs: "\(logs)/collector-\(String(format: "%03d", starts))")
            let text = child.waitForOutput(seconds: max(1, deadline.timeIntervalSinceNow)) { Self.port(in: $0) != nil }
            if let text, let found = Self.port(in: text) {
                port = found
                self.child = child
                return
            }
            lastError = child.stderrTail()
            child.stop()
            usleep(200_000)
        }
        throw FleetError(
            "the collector (paywall-analytics serve on 127.0.0.1:\(port)) did not start within "
                + "\(Int(seconds)) s: \(lastError); see \(logs)/collector-*.err")
    }

    /// SIGKILLs the collector; returns its exit status (137 unless it had exited already).
    func kill() -> Int32 { child?.stop(SIGKILL) ?? 0 }

    /// SIGTERM: the collector finishes what is in flight, commits, and exits 0.
    func terminate() -> Int32 { child?.stop(SIGTERM) ?? 0 }

    static func port(in text: String) -> Int? {
        guard let range = text.range(of: "listening on http://127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// A failure of the fleet driver itself, saying what went wrong and what to look at.
struct FleetError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
