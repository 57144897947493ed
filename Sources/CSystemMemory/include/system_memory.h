#ifndef SYSTEM_MEMORY_H
#define SYSTEM_MEMORY_H

/// Gives the memory the C allocator holds free (in every thread's arena) back to the operating
/// system, so a later step's peak resident memory does not stack on memory an earlier step freed.
/// Returns 1 when memory was released, 0 when none was or the allocator cannot (not glibc).
int system_memory_release(void);

/// Asks the processor to start loading the cache line holding `address` for a read soon: a hint
/// only (no fault, no effect on results), so a loop can overlap the cache misses of lookups it
/// will make a few steps later.
static inline void system_memory_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
