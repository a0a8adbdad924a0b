/* Which injected slowdowns a kernel family was built with (kernels/common/slowdown.cuh): all 0
 * in a normal build. */
#ifndef KERNELS_COMMON_SLOWDOWN_H
#define KERNELS_COMMON_SLOWDOWN_H

typedef struct {
  int work_pct, grid_pct, launch_pct;
} kernel_slowdown;

#endif
