#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro (it passes the library's version and the stream's size), so Swift
/// cannot call it; this wraps it. `window_bits` 15 + 16 reads gzip only, 15 + 32 gzip or zlib.
static inline int czlib_inflate_init(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/// `deflateInit2` for gzip output (window 15 + 16), for tests and the benchmark.
static inline int czlib_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
