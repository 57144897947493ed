import Foundation

/// Waiting for something another task, thread or process makes true: the test polls its condition
/// and goes on the moment it holds.
///
/// The deadline guards against a hang; it is not a measure. Under the whole parallel suite on two
/// cores, or under ThreadSanitizer beside the soak, a task can wait minutes for a thread (CI once
/// saw a 60 s wait for a sleeping task run out), so every wait here gets the same long patience and
/// ends as soon as its condition holds. A test that expects something *not* to happen does not
/// belong here.
public enum Eventually {
    /// How long a wait lasts before the test gives up and fails: ten minutes.
    public static let patience: Duration = .seconds(600)

    /// Polls `condition` (every `interval`, suspending the task between polls) until it holds or
    /// `patience` passes. - Returns: whether it held.
    public static func holds(
        within patience: Duration = Eventually.patience, every interval: Duration = .milliseconds(1),
        _ condition: () throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: patience)
        while try !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: interval)
        }
        return true
    }

    /// The same for code that is not async: blocks the calling thread between polls.
    public static func holdsBlocking(
        within patience: Duration = Eventually.patience, every interval: Duration = .milliseconds(1),
        _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: patience)
        while try !condition() {
            if ContinuousClock.now >= deadline { return false }
            usleep(useconds_t(interval / .microseconds(1)))
        }
        return true
    }
}
