/* The injected slowdowns (build settings for testing the regression gate,
 * kernels/common/slowdown.cuh) are off in a normal build: a merge must never
 * measure a deliberately slowed kernel. Checked in every family with an
 * injection point, since each is compiled with the settings of its own. */
#include <stdio.h>

#include "kernels/elementwise/elementwise.h"
#include "kernels/reduce/reduce.h"

static int check(const char *where, kernel_slowdown s) {
  printf("%s injected slowdown: work %d%%, grid %d%%, launch %d%%\n", where, s.work_pct, s.grid_pct, s.launch_pct);
  if (s.work_pct == 0 && s.grid_pct == 0 && s.launch_pct == 0) return 0;
  fprintf(stderr, "FAIL: %s was built with a --//kernels/common:slowdown_*_pct setting; normal builds must use 0\n",
          where);
  return 1;
}

int main(void) {
  int bad = check("elementwise add_float4", ew_injected_slowdown());
  bad |= check("reduce v7", reduce_injected_slowdown());
  return bad;
}
