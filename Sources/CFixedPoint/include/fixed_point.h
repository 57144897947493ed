#ifndef FIXED_POINT_H
#define FIXED_POINT_H

#include <stddef.h>

/// Writes `value` as printf's `%.*f` with `decimals` decimals into `buffer` (at most `capacity`
/// bytes with the terminating NUL), as `String(format:)` writes it (it calls the same C formatting).
/// Returns the text's length; a length of `capacity` or more means it did not fit.
int fixed_point_format(double value, int decimals, char *buffer, size_t capacity);

#endif
