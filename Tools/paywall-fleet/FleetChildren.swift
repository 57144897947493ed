import Dispatch
import Foundation
import PaywallLock

#if canImport(Glibc)
    import Glibc
#endif

/// Every child process the driver started and has not seen exit, so that a SIGTERM or SIGINT of the
/// driver (a CI timeout, Ctrl-C) SIGKILLs them all instead of leaving a collector and installs behind.
enum FleetChildren {
    private static let running = Lock(Set<Int32>())
    private static let sources = Lock([any DispatchSourceSignal]())

    static func add(_ pid: Int32) { running.withLock { _ = $0.insert(pid) } }
    static func remove(_ pid: Int32) { running.withLock { _ = $0.remove(pid) } }

    /// On SIGTERM or SIGINT: SIGKILL every child, say so, exit 130.
    static func killAllOnTermination() {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                let pids = running.withLock { $0 }
                for pid in pids { _ = kill(pid, SIGKILL) }
                FileHandle.standardError.write(
                    Data("fleet: stopped by signal \(signalNumber); SIGKILLed \(pids.count) children\n".utf8))
                exit(130)
            }
            source.resume()
            sources.withLock { $0.append(source) }
        }
    }
}
