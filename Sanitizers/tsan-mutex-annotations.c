// ThreadSanitizer annotations for Synchronization.Mutex on Linux (test runs only; LD_PRELOADed by
// scripts/sanitizers, which scripts/ci-hardening runs, into `swift test --sanitize=thread`; never
// linked into the product).
//
// No code in this package uses Mutex now: it locks with PaywallLock's Lock and, in a few small
// classes, Foundation's NSLock, both pthread mutexes on Linux, which TSan intercepts. So these
// wrappers are never called; they stay preloaded so that a Mutex brought back (which
// scripts/check-platform-floors refuses below iOS 18) would be checked without false reports.
//
// Why, for Mutex: on Linux, its uncontended lock/unlock are atomic compare-exchanges that TSan
// sees, but the contended paths (_MutexHandle._lockSlow / _unlockSlow, in the uninstrumented
// libswiftSynchronization.so) hand the lock over inside the kernel with raw
// syscall(SYS_futex, FUTEX_LOCK_PI / FUTEX_UNLOCK_PI). TSan has no interceptor for that, so it sees
// no happens-before edge between the releasing and the acquiring thread and reports every access
// to the protected value as a race once two threads contend (10 lines reproduce it; see
// Sanitizers/README.md). Rather than suppress reports (which would hide real races in the
// closures passed to withLock), this interposes the two slow paths and tells TSan what the kernel
// did: release on the mutex before unlocking, acquire after locking. Everything else is unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

// Weak: resolved from the TSan runtime of the instrumented process, absent (NULL) in any other
// process that inherits LD_PRELOAD (swift-build, sh, sqlite3…), where the wrappers only forward.
extern void __tsan_acquire(void *addr) __attribute__((weak));
extern void __tsan_release(void *addr) __attribute__((weak));

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

// borrowing func _lockSlow(_ selfTid: UInt32) and borrowing func _unlockSlow(): swiftcc, with the
// handle's address as self (swift_context lowers to LLVM's swiftself).
typedef __attribute__((swiftcall)) void (*LockSlow)(uint32_t, void *__attribute__((swift_context)));
typedef __attribute__((swiftcall)) void (*UnlockSlow)(void *__attribute__((swift_context)));

__attribute__((swiftcall)) void paywall_lockSlow(uint32_t tid, void *__attribute__((swift_context)) handle) __asm__(LOCK_SLOW);
__attribute__((swiftcall)) void paywall_unlockSlow(void *__attribute__((swift_context)) handle) __asm__(UNLOCK_SLOW);

__attribute__((swiftcall)) void paywall_lockSlow(uint32_t tid, void *__attribute__((swift_context)) handle) {
    static LockSlow real;
    if (!real) real = (LockSlow)dlsym(RTLD_NEXT, LOCK_SLOW);
    real(tid, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

__attribute__((swiftcall)) void paywall_unlockSlow(void *__attribute__((swift_context)) handle) {
    static UnlockSlow real;
    if (!real) real = (UnlockSlow)dlsym(RTLD_NEXT, UNLOCK_SLOW);
    if (__tsan_release) __tsan_release(handle);
    real(handle);
}
