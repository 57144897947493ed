import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One stage of a report run and what it took: wall time and the process's CPU time (user and
/// system, every thread's) from the end of the stage before, and the process's peak resident memory
/// so far (the stage where it rises is where the run's memory peak is). ``FunnelReport/onStage``
/// receives them in order; `paywall-bench report nightly` prints them, to see where a run's time
/// and memory go.
public struct ReportStage: Sendable, Equatable {
    /// The stage: `lease and marks`, `rollup refresh`, the nightly job's subscription state in five
    /// steps (`subscription state: new events`, `…: changed presentations`, `…: fold`,
    /// `…: attribution`, `…: write`), `day partials`, `funnels`, `subscriptions`, `CSV files`, `page`,
    /// `run record` (a run skips the stages it does not have). In the nightly job (native
    /// engine) the subscription money is read and summed beside the report files' rows, inside
    /// `funnels`, and `subscriptions` is about nothing.
    public var name: String
    /// Wall time, in seconds.
    public var seconds: Double
    /// Process CPU time, in seconds (more than `seconds` when two threads worked).
    public var cpuSeconds: Double
    /// The process's peak resident memory at the stage's end, in MiB (never less than the stage
    /// before's).
    public var peakMiB: Int

    /// Creates a stage record.
    public init(name: String, seconds: Double, cpuSeconds: Double, peakMiB: Int = 0) {
        self.name = name
        self.seconds = seconds
        self.cpuSeconds = cpuSeconds
        self.peakMiB = peakMiB
    }
}

/// Marks the ends of a run's stages for ``FunnelReport/onStage``; does nothing without an observer.
final class StageClock: @unchecked Sendable {
    // @unchecked Sendable: used by the one thread that runs the report.
    private let observer: (@Sendable (ReportStage) -> Void)?
    private var wall = ContinuousClock.now
    private var cpu = StageClock.processUsage().cpuSeconds

    init(_ observer: (@Sendable (ReportStage) -> Void)?) { self.observer = observer }

    /// The stage `name` ended now.
    func mark(_ name: String) {
        guard let observer else { return }
        let nowWall = ContinuousClock.now
        let (nowCPU, peakMiB) = Self.processUsage()
        let elapsed = nowWall - wall
        observer(
            ReportStage(
                name: name,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                cpuSeconds: nowCPU - cpu, peakMiB: peakMiB))
        wall = nowWall
        cpu = nowCPU
    }

    /// The process's CPU time so far and its peak resident memory in MiB.
    private static func processUsage() -> (cpuSeconds: Double, peakMiB: Int) {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let peakBytes = Int(usage.ru_maxrss) * 1024
        #else
            getrusage(RUSAGE_SELF, &usage)
            let peakBytes = Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return (cpu, peakBytes >> 20)
    }
}
