import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running ``TestChild`` with the parts of Foundation's `Process` that tests use
/// (`processIdentifier`, `isRunning`, `waitUntilExit()`, `terminationStatus`, `terminationReason`).
///
/// One thread of its own reaps the child (a blocking `waitpid`) and records how it ended; every
/// other call only reads that record, so the child is reaped exactly once whoever asks, from any
/// thread. Waiting blocks the calling thread: call ``waitUntilExit()`` off the concurrency pool.
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked Sendable: `ended` is only used under `condition`'s lock; `child` is a constant.
    private let child: TestChild
    private let condition = NSCondition()
    private var ended: (status: Int32, reason: Process.TerminationReason)?

    /// Starts reaping `child` (started by ``TestChild/spawn(_:_:environment:directory:input:output:error:)``).
    public init(_ child: TestChild) {
        self.child = child
        let reaper = Thread { [self] in
            let (status, signaled) = child.waitForTermination()
            let outcome: (Int32, Process.TerminationReason) = (status, signaled ? .uncaughtSignal : .exit)
            condition.withLock {
                ended = outcome
                condition.broadcast()
            }
        }
        reaper.name = "TestChild.reaper \(child.pid)"
        reaper.start()
    }

    /// The child's process id.
    public var processIdentifier: Int32 { child.pid }

    /// Whether the child has not been reaped yet.
    public var isRunning: Bool { condition.withLock { ended == nil } }

    /// Returns once the child has exited and been reaped.
    public func waitUntilExit() {
        condition.withLock {
            while ended == nil { condition.wait() }
        }
    }

    /// The exit status, or the signal's number when a signal ended the child (waits for the exit).
    public var terminationStatus: Int32 {
        waitUntilExit()
        return condition.withLock { ended!.status }
    }

    /// Whether the child exited or a signal ended it (waits for the exit).
    public var terminationReason: Process.TerminationReason {
        waitUntilExit()
        return condition.withLock { ended!.reason }
    }

    /// The status as a shell reports it: the exit status, or 128 + the signal's number (waits for the exit).
    public var exitStatus: Int32 {
        terminationReason == .uncaughtSignal ? 128 + terminationStatus : terminationStatus
    }

    /// Sends SIGTERM, unless the child has been reaped (its process id may belong to another by then).
    public func terminate() { condition.withLock { if ended == nil { child.kill(SIGTERM) } } }
}
