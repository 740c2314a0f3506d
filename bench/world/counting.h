/* Byte counting behind the allocator hooks of every engine (nscd_allocator,
 * ODE's dSetAllocHandler, Bullet's btAlignedAllocSetCustom): one process-wide
 * counter, since the engines run one after the other. */
#ifndef BENCH_WORLD_COUNTING_H
#define BENCH_WORLD_COUNTING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void bw_count_allocate(size_t size);
void bw_count_release(size_t size);
/* Bytes in use now. */
size_t bw_count_in_use(void);
/* Largest bytes in use since the last bw_count_reset_peak(). */
size_t bw_count_peak(void);
void bw_count_reset_peak(void);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_WORLD_COUNTING_H */
