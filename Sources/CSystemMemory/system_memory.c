#include <stdlib.h>   // defines __GLIBC__ on glibc systems
#include "system_memory.h"

#if defined(__GLIBC__)
#include <malloc.h>

int system_memory_release(void) { return malloc_trim(0); }
#else
int system_memory_release(void) { return 0; }
#endif
