#ifndef SYSTEM_MEMORY_H
#define SYSTEM_MEMORY_H

/// Gives the memory the C allocator holds free (in every thread's arena) back to the operating
/// system, so a later step's peak resident memory does not stack on memory an earlier step freed.
/// Returns 1 when memory was released, 0 when none was or the allocator cannot (not glibc).
int system_memory_release(void);

#endif
