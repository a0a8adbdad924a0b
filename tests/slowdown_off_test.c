/* The injected slowdown (a build setting for testing the regression gate) is
 * off in a normal build: a merge must never measure a deliberately slowed kernel. */
#include <stdio.h>

#include "kernels/elementwise/elementwise.h"

int main(void) {
  int pct = ew_injected_slowdown_pct();
  printf("add_float4 injected slowdown: %d%%\n", pct);
  if (pct != 0) {
    fprintf(stderr, "FAIL: built with --//kernels/elementwise:slowdown_add_float4_pct=%d; normal builds must use 0\n", pct);
    return 1;
  }
  return 0;
}
