import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected pair of stream sockets for feeding a reader and then failing its reads: the test
/// writes to ``feedingEnd``, the code under test reads ``readingEnd``, and ``reset()`` makes the
/// reader's read fail with `ECONNRESET` once it has read every byte sent before (a real kernel
/// error, which a file or a pipe cannot produce mid-stream).
///
/// How: the pair is made with one byte already queued towards ``feedingEnd``, which nobody reads;
/// a stream socket closed with unread data resets its peer, and the kernel hands the reader every
/// byte queued for it before it reports the reset. So ``reset()`` needs no waiting: it closes.
/// Both descriptors are close-on-exec, so a child that another test starts meanwhile cannot hold
/// a copy of ``feedingEnd`` and keep the socket from being reset (a child given ``readingEnd`` as
/// its standard input gets it through `dup2`, which the flag does not follow).
///
/// ```swift
/// let stream = try ResettableStream()
/// // hand stream.readingEnd to the reader (a thread, or a child's standard input) …
/// try stream.send(bytes)
/// stream.reset()              // the reader's next read after those bytes returns ECONNRESET
/// ```
/// Used from the test's own thread; the reader gets ``readingEnd``, a plain descriptor.
public final class ResettableStream {
    /// The end the code under test reads.
    public let readingEnd: Int32
    /// The end the test writes; closed by ``reset()``.
    public let feedingEnd: Int32
    private var feedingOpen = true
    private var readingOwned = true

    /// Creates the pair; a write to ``feedingEnd`` that makes no progress for `sendTimeout` fails
    /// instead of blocking for ever (a reader that died cannot hang the test; a live reader on a
    /// busy machine is far quicker than that).
    public init(sendTimeout: Duration = .seconds(600)) throws {
        var pair: [Int32] = [-1, -1]
        #if canImport(Darwin)
            let kind = SOCK_STREAM
        #else
            let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #endif
        guard socketpair(AF_UNIX, kind, 0, &pair) == 0 else { throw POSIXError(Self.code()) }
        (readingEnd, feedingEnd) = (pair[0], pair[1])
        #if canImport(Darwin)
            _ = fcntl(readingEnd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(feedingEnd, F_SETFD, FD_CLOEXEC)
        #endif
        var timeout = timeval(tv_sec: Int(sendTimeout.components.seconds), tv_usec: 0)
        _ = setsockopt(feedingEnd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The byte that makes closing the feeding end a reset: queued towards it, never read
        guard write(readingEnd, "x", 1) == 1 else {
            let error = POSIXError(Self.code())
            close(readingEnd)
            close(feedingEnd)
            throw error
        }
    }

    deinit {
        if feedingOpen { close(feedingEnd) }
        if readingOwned { close(readingEnd) }
    }

    /// Says the code under test closes ``readingEnd`` itself (the deinit then leaves it alone).
    public func readerClosesItsEnd() { readingOwned = false }

    /// Writes every byte to ``feedingEnd`` (blocking while the reader catches up).
    /// - Throws: `POSIXError` when a write fails or makes no progress for the send timeout.
    public func send(_ bytes: [UInt8]) throws {
        guard try PipeWriting.write(Data(bytes), to: feedingEnd) else { throw POSIXError(.EPIPE) }
    }

    /// Closes ``feedingEnd`` (once; later calls do nothing): the reader reads what was sent, then its
    /// next read fails with `ECONNRESET`. Call it also when a test gives up early, before it waits
    /// for the reader, so that the reader ends instead of waiting for bytes that never come.
    public func reset() {
        guard feedingOpen else { return }
        close(feedingEnd)
        feedingOpen = false
    }

    private static func code() -> POSIXErrorCode { POSIXErrorCode(rawValue: errno) ?? .EIO }
}
