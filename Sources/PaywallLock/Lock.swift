#if canImport(os)
    import os
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutual-exclusion lock that owns the state it guards: the lock the modules share (a few small
/// classes still use Foundation's `NSLock`).
///
/// `Synchronization.Mutex` needs iOS 18 / macOS 15; this lock works on every platform the
/// package supports (iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1, Linux). On Darwin it
/// is an `os_unfair_lock`, elsewhere a `pthread_mutex_t`, each allocated once at a stable
/// address. It is not recursive: calling `withLock` again from inside the closure deadlocks
/// (Darwin traps). The state is copyable on purpose: a generic type instantiated with a
/// noncopyable one may need a newer Swift runtime than iOS 16's, so this lock takes no chances.
///
/// ```swift
/// let counter = Lock(0)
/// counter.withLock { $0 += 1 }
/// let value = counter.withLock { $0 }
/// ```
public final class Lock<State>: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only between lock and unlock of
    // `primitive`, which is allocated in `init` and freed in `deinit`.
    #if canImport(os)
        private let primitive: UnsafeMutablePointer<os_unfair_lock>
    #else
        private let primitive: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    private var state: State

    /// Creates a lock guarding `initial`.
    /// - Parameter initial: the state the lock starts with.
    public init(_ initial: State) {
        state = initial
        #if canImport(os)
            primitive = .allocate(capacity: 1)
            primitive.initialize(to: os_unfair_lock())
        #else
            primitive = .allocate(capacity: 1)
            primitive.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(primitive, nil)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        #endif
    }

    deinit {
        #if !canImport(os)
            pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    /// - Parameter body: reads or changes the state; it must not call `withLock` on this lock.
    /// - Returns: the value `body` returns.
    /// - Throws: whatever `body` throws (the lock is released first).
    public func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&state)
    }

    private func lock() {
        #if canImport(os)
            os_unfair_lock_lock(primitive)
        #else
            let result = pthread_mutex_lock(primitive)
            precondition(result == 0, "pthread_mutex_lock failed with \(result)")
        #endif
    }

    private func unlock() {
        #if canImport(os)
            os_unfair_lock_unlock(primitive)
        #else
            let result = pthread_mutex_unlock(primitive)
            precondition(result == 0, "pthread_mutex_unlock failed with \(result)")
        #endif
    }
}
