/* Byte counting (counting.h). */
#include "counting.h"

static size_t in_use, peak;

void bw_count_allocate(size_t size) {
    in_use += size;
    if (in_use > peak) {
        peak = in_use;
    }
}

void bw_count_release(size_t size) { in_use -= size < in_use ? size : in_use; }

size_t bw_count_in_use(void) { return in_use; }

size_t bw_count_peak(void) { return peak; }

void bw_count_reset_peak(void) { peak = in_use; }
