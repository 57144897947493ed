import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a process id still runs (for staging files and folders left by killed processes).
public enum ProcessLiveness {
    /// `true` unless the system says no such process exists (`kill(pid, 0)` failing with `ESRCH`).
    public static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}
