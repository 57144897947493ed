import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts a child process for a test with exactly the descriptors the test means it to have: its
/// standard input, output and error, nothing else. Built on `posix_spawn`.
///
/// Why not Foundation's `Process`: on Linux it lets a child inherit whatever the test process has
/// open that is not close-on-exec. It tries to close them in the child, but from a list of
/// descriptors it reads before spawning, so one opened by another test thread in between (a
/// socket, the pipe of another test's child, a SQLite file) still reaches the child, which then
/// keeps that pipe's writer open (its reader never sees end of file) or that port bound. Here the
/// child closes every descriptor from 3 up at the moment it starts (`closefrom` as a spawn action on
/// Linux, `POSIX_SPAWN_CLOEXEC_DEFAULT` on Darwin), so nothing opened meanwhile can slip through.
///
/// The caller owns every descriptor it passes and closes it itself, once; nothing here closes a
/// descriptor behind its owner's back (a second close of a number another thread has reused is
/// what makes an unrelated launch fail with "Bad file descriptor").
///
/// ```swift
/// let child = try TestChild.spawn(URL(fileURLWithPath: "/bin/ls"), ["/proc/self/fd"], output: pipe.writer)
/// let status = child.waitForExit()
/// ```
public struct TestChild: Sendable {
    /// The child's process id.
    public let pid: pid_t

    /// Starts `executable` with `arguments` (not including the program name), the environment
    /// `environment` (the test process's own when nil), in `directory` (the current one when nil),
    /// its descriptors 0, 1 and 2 being `input`, `output` and `error` of this process (`-1` means
    /// `/dev/null`). Every other descriptor is closed in the child. The child runs in its own
    /// process group, with SIGPIPE at its default action and no signal blocked.
    public static func spawn(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        input: Int32 = -1, output: Int32 = -1, error: Int32 = -1
    ) throws -> TestChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Each source is a descriptor of this process; the test's own 0, 1 and 2 are never a source
        // for another slot than their own, so the copies below cannot overwrite one another.
        for (target, source) in [input, output, error].enumerated() {
            if source < 0 {
                try check(
                    posix_spawn_file_actions_addopen(
                        &actions, Int32(target), "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0))
            } else {
                // Onto itself, this clears the close-on-exec flag (glibc, Darwin).
                try check(posix_spawn_file_actions_adddup2(&actions, source, Int32(target)))
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
            flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
            try check(closeFrom(&actions, 3))
        #endif
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)))
        try check(posix_spawnattr_setpgroup(&attributes, 0))
        var none = sigset_t()
        sigemptyset(&none)
        try check(posix_spawnattr_setsigmask(&attributes, &none))
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        try check(posix_spawnattr_setsigdefault(&attributes, &defaults))
        if let directory { try check(addChdir(&actions, directory.path)) }

        let variables = environment ?? ProcessInfo.processInfo.environment
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnFailed(executable: executable.path, code: status)
        }
        return TestChild(pid: child)
    }

    /// Waits for the child to exit and reaps it; returns its exit status, or 128 + the signal
    /// number when a signal ended it. Blocks: call it off the concurrency pool.
    public func waitForExit() -> Int32 {
        let ended = waitForTermination()
        return ended.signaled ? 128 + ended.status : ended.status
    }

    /// Waits for the child to exit and reaps it; returns its exit status or, when a signal ended
    /// it, that signal's number and `signaled` true. Blocks: call it off the concurrency pool.
    public func waitForTermination() -> (status: Int32, signaled: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return (-1, false) }
        }
        let signal = status & 0x7f
        return signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
    }

    /// Sends `signal` to the child (SIGKILL by default).
    public func kill(_ signal: Int32 = SIGKILL) { _ = Foundation.kill(pid, signal) }

    /// A pipe whose two ends are close-on-exec in this process (a child gets an end only when it is
    /// passed to ``spawn(_:_:environment:directory:input:output:error:)``). The caller closes each end
    /// once, with `close`.
    public static func pipe() throws -> (reader: Int32, writer: Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
            guard Darwin.pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        #else
            typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
            guard let pipe2 = cFunction("pipe2", as: Pipe2.self) else { throw POSIXError(.ENOSYS) }
            guard pipe2(&ends, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        #endif
        return (ends[0], ends[1])
    }

    /// Reads `descriptor` to end of file (retrying after signals); blocks.
    public static func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// Why a child could not be started.
    public struct SpawnFailed: Error, CustomStringConvertible {
        /// The program that was to be started.
        public var executable: String
        /// The `errno` value `posix_spawn` returned.
        public var code: Int32
        /// Names the program and the system's reason.
        public var description: String {
            "cannot start \(executable): \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    private static func check(_ status: Int32) throws {
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
    }

    private typealias FileActions = UnsafeMutablePointer<posix_spawn_file_actions_t>

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29, macOS 10.15).
    private static func addChdir(_ actions: FileActions, _ path: String) -> Int32 {
        typealias AddChdir = @convention(c) (FileActions, UnsafePointer<CChar>) -> Int32
        guard let addChdir = cFunction("posix_spawn_file_actions_addchdir_np", as: AddChdir.self) else { return ENOSYS }
        return addChdir(actions, path)
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34): the child closes every descriptor
    /// from `lowest` up as it starts.
    private static func closeFrom(_ actions: FileActions, _ lowest: Int32) -> Int32 {
        typealias AddCloseFrom = @convention(c) (FileActions, Int32) -> Int32
        guard let addCloseFrom = cFunction("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self) else {
            return ENOSYS
        }
        return addCloseFrom(actions, lowest)
    }

    /// A C library function looked up at run time: the C library declares these only with
    /// `_GNU_SOURCE` (or `_DEFAULT_SOURCE`), which the package's Swift modules are not compiled with.
    private static func cFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
        #if canImport(Darwin)
            let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        guard let symbol = dlsym(everywhere, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}
