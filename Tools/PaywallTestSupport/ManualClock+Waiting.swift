import Foundation
import PaywallSimulation

extension ManualClock {
    /// Waits (in real time, up to `timeout`) until at least `count` tasks sleep on the clock,
    /// so a test can advance time knowing the timers it expects are armed.
    /// - Returns: whether that many sleepers arrived in time.
    ///
    /// The default timeout is a guard against a hang, not a measure: under the whole parallel suite
    /// a sleeping task can wait minutes for one of the concurrency pool's two threads (CI once saw
    /// `ForwardingLoopTests` miss a 60 s deadline this way), and the wait ends as soon as it arrives.
    @discardableResult
    public func waitForSleepers(_ count: Int, timeout: Duration = .seconds(600)) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while sleeperCount < count {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}
