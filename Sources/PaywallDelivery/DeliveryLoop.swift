import Foundation

/// Something that runs one ``DeliveryEngine`` pass and returns its ``DeliveryPass`` (the uploader).
public protocol DeliveryPassRunning: Sendable {
    /// Runs one pass; ``DeliveryPass/busy`` when another pass holds the lease.
    /// - Throws: storage errors.
    func runPass() async throws -> DeliveryPass
}

/// Runs a ``DeliveryPassRunning`` periodically inside an embedding process, and early whenever
/// ``trigger()`` is called (right after a flush, when the app comes back).
///
/// ```swift
/// let loop = DeliveryLoop(runner: uploader, interval: .seconds(60), clock: ContinuousClock())
/// let task = Task { await loop.run() }
/// loop.trigger()          // after a flush
/// // … on shutdown: task.cancel()
/// ```
public final class DeliveryLoop: Sendable {
    private let runner: any DeliveryPassRunning
    private let schedule: PassSchedule
    private let onPass: @Sendable (Result<DeliveryPass, any Error>) -> Void

    /// Creates a loop.
    /// - Parameters:
    ///   - runner: what runs one pass.
    ///   - interval: time between passes when nothing triggers one sooner.
    ///   - clock: the clock the interval is measured on (a manual clock in tests).
    ///   - onPass: called after every pass with its result (storage errors do not stop the loop).
    public init(
        runner: any DeliveryPassRunning, interval: Duration, clock: any Clock<Duration>,
        onPass: @escaping @Sendable (Result<DeliveryPass, any Error>) -> Void = { _ in }
    ) {
        self.runner = runner
        schedule = PassSchedule(interval: interval, clock: clock)
        self.onPass = onPass
    }

    /// Asks for a pass as soon as possible; several triggers before the pass starts count once.
    public func trigger() { schedule.signal.fire() }

    /// The passes ``run()`` has ended (completed, busy or failed); ``runOnce()``'s are not counted.
    /// An app or a test can wait for the first one, which runs as soon as the loop starts.
    public var passesRun: Int { schedule.passesRun }

    /// Runs one pass now, outside the schedule (it shares the lease with the loop's passes).
    public func runOnce() async throws -> DeliveryPass { try await runner.runPass() }

    /// Runs a pass now, then one per interval or trigger, until the task is cancelled.
    public func run() async {
        await schedule.run({ try await runner.runPass() }, report: onPass)
    }
}
