import Foundation
import PaywallSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The nightly run's lock: a lease row in `meta` (`reports.lease`), taken in a `BEGIN IMMEDIATE`
/// transaction so two runs cannot both take it. It names the holder (host, pid, a token) and an
/// expiry. A lease is ignored once it has expired, or at once when its holder was on this host and
/// that process no longer exists (a killed run never blocks the next one).
struct ReportLease {
    static let key = ReportSchema.leaseKey

    let connection: Connection
    let token: String
    let host: String
    let pid: Int32

    init(
        connection: Connection, token: String = UUID().uuidString,
        host: String = ProcessInfo.processInfo.hostName, pid: Int32 = getpid()
    ) {
        self.connection = connection
        self.token = token
        self.host = host
        self.pid = pid
    }

    /// Takes the lease until `now + durationMs`.
    ///
    /// - Throws: ``ReportError/busy(holder:)`` when a live holder has it; ``ReportError/storage(_:)``.
    func acquire(now: Int64, durationMs: Int64) throws {
        try ReportError.wrap {
            try connection.transaction(.immediate) { db in
                if let value = try ReportSchema.metaValue(Self.key, in: db),
                    let holder = Holder(value), holder.token != token, holder.isLive(now: now, host: host)
                {
                    throw ReportError.busy(holder: "process \(holder.pid) on \(holder.host)")
                }
                let value = Holder(token: token, host: host, pid: pid, expiresAt: now + durationMs).encoded
                try ReportSchema.setMeta(Self.key, to: value, in: db)
            }
        }
    }

    /// Gives the lease back if this run still holds it.
    func release() {
        _ = try? connection.run(
            "DELETE FROM meta WHERE key = ? AND value LIKE ?", [.text(Self.key), .text(token + " %")])
    }

    /// The stored form of a lease: `token pid expiresAt host`.
    struct Holder {
        var token: String
        var host: String
        var pid: Int32
        var expiresAt: Int64

        init(token: String, host: String, pid: Int32, expiresAt: Int64) {
            self.token = token
            self.host = host
            self.pid = pid
            self.expiresAt = expiresAt
        }

        init?(_ value: String) {
            let parts = value.split(separator: " ", maxSplits: 3).map(String.init)
            guard parts.count == 4, let pid = Int32(parts[1]), let expiresAt = Int64(parts[2]) else { return nil }
            self.init(token: parts[0], host: parts[3], pid: pid, expiresAt: expiresAt)
        }

        var encoded: String { "\(token) \(pid) \(expiresAt) \(host)" }

        /// Unexpired and, when held on this host, its process still exists.
        func isLive(now: Int64, host current: String) -> Bool {
            guard expiresAt > now else { return false }
            if host == current { return kill(pid, 0) == 0 || errno == EPERM }
            return true
        }
    }
}
