import Foundation
import PaywallLock

/// What `GET /healthz` answers from: the writer's last known state, kept by the group commits
/// themselves and by a probe (a write through the writer) at most once per ``probeInterval`` when
/// no commit came meanwhile. A health check therefore never waits in the writer's queue, however
/// many arrive, and says 503 when writes fail for any reason (a full disk, a lock held past the busy
/// timeout, a log that cannot be flushed) until a later write succeeds.
///
/// A store at the edge of its space takes a one-row write and refuses an upload, so while a data
/// write's failure stands the probe writes as many bytes as the smallest failed write
/// (``probeBytes()``): only a write that size, or a real upload, clears the failure.
final class WriterHealth: Sendable {
    /// The state.
    private struct State {
        /// When a write last succeeded (committed and flushed), uptime nanoseconds.
        var lastSuccess: UInt64
        /// Why the last write failed, when it failed after the last success.
        var failure: String?
        /// A probe is waiting in the writer.
        var probing = false
        /// A group that wrote rows was committed since the last flush.
        var wroteSinceSync = false
        /// The estimated size of the smallest data write that failed since the last success.
        var failedWriteBytes: Int?
        /// Probes that succeeded and failed (for `/metrics`).
        var probes = (succeeded: 0, failed: 0)
    }

    /// How often the writer is probed when idle.
    let probeInterval: UInt64
    /// How old the last success may be before the writer counts as stuck.
    let maxAge: UInt64
    private let state: Lock<State>

    /// Creates a state that starts healthy (the collector checked the store's write lock at start).
    init(probeInterval: Duration = .seconds(1), maxAge: Duration = .seconds(10)) {
        self.probeInterval = Self.nanoseconds(probeInterval)
        self.maxAge = Self.nanoseconds(maxAge)
        state = Lock(State(lastSuccess: DispatchTime.now().uptimeNanoseconds))
    }

    /// A group that wrote rows (or a probe) was committed; its flush comes next.
    func committedWrite() { state.withLock { $0.wroteSinceSync = true } }

    /// A flush succeeded: every group committed before it is on disk. Only a flush covering a group
    /// that wrote rows counts as a successful write (an empty group writes nothing).
    func flushed() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock {
            guard $0.wroteSinceSync else { return }
            $0.wroteSinceSync = false
            $0.lastSuccess = now
            $0.failure = nil
            $0.failedWriteBytes = nil
        }
    }

    /// A commit or flush failed, for `reason`; `bytes` estimates the size of a data write that
    /// failed (nil for a probe or a flush).
    func failed(_ reason: String, bytes: Int? = nil) {
        state.withLock {
            $0.failure = reason
            $0.wroteSinceSync = false
            if let bytes { $0.failedWriteBytes = min($0.failedWriteBytes ?? bytes, bytes) }
        }
    }

    /// How many bytes the next probe writes beside its row: the smallest failed data write since
    /// the last success, or 0 when none failed.
    func probeBytes() -> Int { state.withLock { $0.failedWriteBytes ?? 0 } }

    /// Counts a probe that succeeded or failed.
    func probed(succeeded: Bool) {
        state.withLock {
            if succeeded { $0.probes.succeeded += 1 } else { $0.probes.failed += 1 }
        }
    }

    /// Probes that succeeded and failed since the start.
    var probes: (succeeded: Int, failed: Int) { state.withLock { $0.probes } }

    /// Why the collector is not healthy now, or nil when it is.
    func problem() -> String? {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            if let failure = state.failure { return "the store cannot take writes (\(failure))" }
            let age = now &- state.lastSuccess
            if age > maxAge {
                return "the writer has not completed a write for \(age / 1_000_000_000) s"
            }
            return nil
        }
    }

    /// Whether a probe is due (no write succeeded within the interval, or the last one failed, and
    /// none is waiting); marks one as waiting when it is.
    func startProbeIfDue() -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard !state.probing, state.failure != nil || now &- state.lastSuccess >= probeInterval else {
                return false
            }
            state.probing = true
            return true
        }
    }

    /// The probe came back (or could not be queued).
    func probeDone() { state.withLock { $0.probing = false } }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    }
}

/// Writes one line per message, folding repeats: a message equal to the one before is counted, not
/// written, and the count is written (`(the line above repeated N more times)`) when another
/// message comes or at most once a minute while the repeats go on. A full disk, which fails every
/// commit, then costs a line a minute, not a line per request.
final class FoldedLog: Sendable {
    private struct State {
        var last: String?
        var repeats = 0
        var lastReport: UInt64 = 0
    }

    private let write: @Sendable (String) -> Void
    private let state = Lock(State())
    private let reportEvery: UInt64

    init(reportEvery: Duration = .seconds(60), write: @escaping @Sendable (String) -> Void) {
        self.write = write
        self.reportEvery = UInt64(reportEvery.components.seconds) * 1_000_000_000
    }

    func callAsFunction(_ message: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let lines: [String] = state.withLock { state in
            if message == state.last {
                state.repeats += 1
                guard now &- state.lastReport >= reportEvery else { return [] }
                defer {
                    state.repeats = 0
                    state.lastReport = now
                }
                return ["(the line above repeated \(state.repeats) more time\(state.repeats == 1 ? "" : "s"))"]
            }
            var out: [String] = []
            if state.repeats > 0 {
                out.append("(the line above repeated \(state.repeats) more time\(state.repeats == 1 ? "" : "s"))")
            }
            out.append(message)
            state.last = message
            state.repeats = 0
            state.lastReport = now
            return out
        }
        for line in lines { write(line) }
    }
}
