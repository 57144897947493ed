import Foundation
import PaywallCore

extension ManualClock {
    /// Waits (in real time, up to `timeout`) until at least `count` tasks sleep on the clock,
    /// so a test can advance time knowing the timers it expects are armed.
    /// - Returns: whether that many sleepers arrived in time.
    @discardableResult
    public func waitForSleepers(_ count: Int, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while sleeperCount < count {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}
