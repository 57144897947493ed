import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to a child process's standard input (a pipe, or a socket) without the test process dying
/// of SIGPIPE when the child has exited or closed it: such a write reports the closed reader instead.
///
/// On Linux the writing thread blocks SIGPIPE for the write and takes back the one a closed reader
/// raised; on Darwin the descriptor gets `F_SETNOSIGPIPE`. Nothing process-wide changes, so children
/// started meanwhile keep SIGPIPE's default action.
///
/// ```swift
/// let delivered = try PipeWriting.write(Data("done\n".utf8), to: input.fileHandleForWriting)
/// ```
public enum PipeWriting {
    /// Writes every byte of `data` to `handle`'s descriptor, as the descriptor form does.
    @discardableResult
    public static func write(_ data: Data, to handle: FileHandle) throws -> Bool {
        try write(data, to: handle.fileDescriptor)
    }

    /// Writes every byte of `data` to `descriptor`, retrying after signals and short writes.
    ///
    /// - Returns: true when everything was written, false when the reader is gone (`EPIPE`; some
    ///   bytes may have been written before).
    /// - Throws: `POSIXError` for any other failure (a send timeout's `EAGAIN`, a closed descriptor).
    @discardableResult
    public static func write(_ data: Data, to descriptor: Int32) throws -> Bool {
        #if canImport(Darwin)
            _ = fcntl(descriptor, F_SETNOSIGPIPE, 1)
            return try writeAll(data, to: descriptor)
        #else
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
            var pending = sigset_t()
            sigpending(&pending)
            let pendingBefore = sigismember(&pending, SIGPIPE) == 1
            defer {
                // A closed reader raised SIGPIPE at this thread, held pending by the mask: take it back.
                sigpending(&pending)
                if !pendingBefore && sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec(tv_sec: 0, tv_nsec: 0)
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
            return try writeAll(data, to: descriptor)
        #endif
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws -> Bool {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count >= 0 {
                    offset += count
                } else if errno == EINTR {
                    continue
                } else if errno == EPIPE {
                    return false
                } else {
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
            }
            return true
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.write(descriptor, bytes, count)
        #else
            Glibc.write(descriptor, bytes, count)
        #endif
    }
}
