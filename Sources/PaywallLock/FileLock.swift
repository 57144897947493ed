#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file beside a store or an output folder, taken without waiting and
/// held until ``release()`` (or the end of the process, however it ends: the system drops the lock
/// with the last open copy of the file). The lock files of the package (one collector per store,
/// one pass per delivery lease, one report run per output folder) all go through this type.
///
/// Release unlocks before it closes: the lock belongs to the open file, and a child process forked
/// meanwhile by any thread (before its `exec`) holds a copy of the descriptor, so a `close` alone
/// would keep the file locked until that child execs or exits.
public final class FileLock: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is read and changed only under `state`'s lock.
    /// Why a lock could not be taken.
    public enum Failure: Error, Equatable {
        /// The file could not be opened or created; `reason` is the system's message.
        case cannotOpen(reason: String)
        /// Another open file holds the lock; `contents` is what the file said (up to 4 KiB).
        case held(contents: String)
    }

    /// The lock file's path.
    public let path: String
    private let state: Lock<Int32>

    /// Opens (creating with `permissions` when missing) and locks `path` without waiting.
    ///
    /// - Throws: ``Failure/cannotOpen(reason:)`` or ``Failure/held(contents:)``.
    public init(path: String, permissions: mode_t = 0o600) throws(Failure) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw .cannotOpen(reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let contents = Self.read(descriptor)
            close(descriptor)
            throw .held(contents: contents)
        }
        self.path = path
        state = Lock(descriptor)
    }

    /// Whether some open file holds an exclusive lock on `path` now. Takes nothing: a shared try,
    /// released at once; a missing file is not held.
    public static func isHeld(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        _ = flock(descriptor, LOCK_UN)
        return false
    }

    /// Whether the locked file is still the one at ``path`` (it may have been removed, or removed
    /// and created again, between the `open` and the `flock`: a lock on such a file proves nothing).
    public var isAtPath: Bool {
        state.withLock { descriptor in
            var opened = stat()
            var current = stat()
            return descriptor >= 0 && fstat(descriptor, &opened) == 0 && stat(path, &current) == 0
                && opened.st_ino == current.st_ino && opened.st_dev == current.st_dev
        }
    }

    /// What the file says (up to 4 KiB).
    public func contents() -> String {
        state.withLock { $0 >= 0 ? Self.read($0) : "" }
    }

    /// Replaces what the file says with `text`.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        state.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            _ = ftruncate(descriptor, off_t(bytes.count))
        }
    }

    /// Unlocks and closes the file (it stays on disk); later calls do nothing.
    public func release() {
        state.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    /// Removes the file, then unlocks and closes it.
    public func removeAndRelease() {
        state.withLock { descriptor in
            guard descriptor >= 0 else { return }
            unlink(path)
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    /// The open descriptor, or -1 once released (for tests that check the lock is given up).
    public var descriptor: Int32 { state.withLock { $0 } }

    deinit { release() }

    private static func read(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 4_096)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    }
}
