#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's memory-usage statistics (a global mutex taken on every allocation), before
/// the library is initialized; returns SQLITE_MISUSE once it already is (then nothing changes).
/// `sqlite3_config` is variadic, so Swift cannot call it directly.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
