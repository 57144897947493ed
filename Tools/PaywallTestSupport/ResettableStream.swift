import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected pair of stream sockets for feeding a reader and then failing its next read: the
/// test writes to ``feedingEnd``, the code under test reads ``readingEnd``, and ``reset()`` makes
/// that read fail with `ECONNRESET` once everything written was read (a real kernel error, which a
/// file or a pipe cannot produce mid-stream).
///
/// ```swift
/// let stream = try ResettableStream()
/// // hand stream.readingEnd to the reader (a thread, or a child's standard input) …
/// try stream.send(bytes)
/// try stream.reset()          // the reader's next read returns ECONNRESET
/// ```
/// Used from the test's own thread; the reader gets ``readingEnd``, a plain descriptor.
public final class ResettableStream {
    /// The end the code under test reads.
    public let readingEnd: Int32
    /// The end the test writes; closed by ``reset()``.
    public let feedingEnd: Int32
    private var feedingOpen = true
    private var readingOwned = true

    /// Creates the pair; a write to ``feedingEnd`` that blocks for `sendTimeout` fails instead
    /// (a reader that stopped reading cannot hang the test).
    public init(sendTimeout: Duration = .seconds(60)) throws {
        var pair: [Int32] = [-1, -1]
        #if canImport(Darwin)
            let kind = SOCK_STREAM
        #else
            let kind = Int32(SOCK_STREAM.rawValue)
        #endif
        guard socketpair(AF_UNIX, kind, 0, &pair) == 0 else { throw POSIXError(Self.code()) }
        (readingEnd, feedingEnd) = (pair[0], pair[1])
        var timeout = timeval(tv_sec: Int(sendTimeout.components.seconds), tv_usec: 0)
        _ = setsockopt(feedingEnd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        if feedingOpen { close(feedingEnd) }
        if readingOwned { close(readingEnd) }
    }

    /// Says the code under test closes ``readingEnd`` itself (the deinit then leaves it alone).
    public func readerClosesItsEnd() { readingOwned = false }

    /// Writes every byte to ``feedingEnd`` (blocking while the reader catches up).
    /// - Throws: `POSIXError` when a write fails or times out.
    public func send(_ bytes: [UInt8]) throws {
        guard try PipeWriting.write(Data(bytes), to: feedingEnd) else { throw POSIXError(.EPIPE) }
    }

    /// Waits until everything sent was read (at most `timeout`), then closes ``feedingEnd``
    /// holding a byte it never read, so the reader's next read fails with `ECONNRESET`.
    /// - Throws: `POSIXError(.ETIMEDOUT)` when the reader did not read everything in time.
    public func reset(timeout: Duration = .seconds(60)) throws {
        let deadline = ContinuousClock.now + timeout
        var unread: Int32 = 1
        while true {
            guard ioctl(readingEnd, Self.unreadBytesRequest, &unread) == 0 else { throw POSIXError(Self.code()) }
            if unread == 0 { break }
            guard ContinuousClock.now < deadline else { throw POSIXError(.ETIMEDOUT) }
            usleep(10_000)
        }
        // A byte into the feeding end's own queue: a stream socket closed with unread data resets its peer.
        guard write(readingEnd, "x", 1) == 1 else { throw POSIXError(Self.code()) }
        close(feedingEnd)
        feedingOpen = false
    }

    #if canImport(Darwin)
        /// `FIONREAD`, which Darwin defines with a macro Swift does not import (`_IOR('f', 127, int)`).
        private static let unreadBytesRequest: UInt = 0x4004_667F
    #else
        private static let unreadBytesRequest = UInt(FIONREAD)
    #endif

    private static func code() -> POSIXErrorCode { POSIXErrorCode(rawValue: errno) ?? .EIO }
}
