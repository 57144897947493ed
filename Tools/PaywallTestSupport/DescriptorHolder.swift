import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process that holds a copy of one of this process's descriptors until ``stop()``: what a
/// child forked by any thread holds between its fork and its exec (or for its whole life when the
/// descriptor is not close-on-exec). A test uses it to show that a lock taken on that descriptor's open
/// file is released by its owner, not only when the last copy is closed.
public final class DescriptorHolder {
    /// The child's process id.
    public let pid: pid_t
    private var stopped = false

    /// Starts `/bin/sleep` with `descriptor` duplicated as its descriptor 3 (the same open file).
    public init(holding descriptor: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let arguments = ["/bin/sleep", "3600"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(status))
        }
        pid = child
    }

    /// Whether the child is still running (it has not been reaped).
    public var isRunning: Bool { !stopped && kill(pid, 0) == 0 }

    /// Ends the child (SIGKILL) and reaps it.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit { stop() }
}
