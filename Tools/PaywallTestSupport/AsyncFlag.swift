import Foundation

/// A one-shot event: raised once, awaited by any number of tasks. Waiting holds no thread (the
/// waiter is suspended on a continuation), so a test waiting for it never takes one of the
/// concurrency pool's threads away from the code it waits for.
public final class AsyncFlag: @unchecked Sendable {
    // @unchecked Sendable: `raised` and `waiters` are only used under `lock`.
    private let lock = NSLock()
    private var raised = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a flag that is not raised.
    public init() {}

    /// Raises the flag and resumes every waiter; raising it again does nothing.
    public func raise() {
        let resumed = lock.withLock {
            defer { waiters.removeAll() }
            if raised { return [CheckedContinuation<Void, Never>]() }
            raised = true
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Whether the flag was raised.
    public var isRaised: Bool { lock.withLock { raised } }

    /// Returns once the flag is raised (at once if it was).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if !raised { waiters.append(continuation) }
                return raised
            }
            if now { continuation.resume() }
        }
    }
}
