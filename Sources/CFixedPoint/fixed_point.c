#include <stdio.h>
#include "fixed_point.h"

int fixed_point_format(double value, int decimals, char *buffer, size_t capacity) {
    return snprintf(buffer, capacity, "%.*f", decimals, value);
}
