#include "perf/verify.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/support/host_check.h"

enum { CHUNK = 1 << 20 };

int verify_f32(const char *what, const float *got, size_t n, verify_ref_fn ref, const void *ctx, int use_scale,
               double rtol, double atol, char *err, size_t errlen) {
  double *want = malloc(CHUNK * sizeof *want), *scale = use_scale ? malloc(CHUNK * sizeof *scale) : NULL;
  if (!want || (use_scale && !scale)) {
    free(want);
    free(scale);
    snprintf(err, errlen, "%s: out of host memory for the reference", what);
    return -1;
  }
  compare_report all = {.n = n, .bad = 0, .first_bad = n, .max_abs_err = 0, .max_rel_err = 0};
  for (size_t begin = 0; begin < n; begin += CHUNK) {
    size_t count = n - begin < CHUNK ? n - begin : CHUNK;
    ref(ctx, begin, count, want, scale);
    compare_report r = compare_f32(got + begin, want, scale, count, rtol, atol);
    if (r.bad && all.bad == 0) {
      all.first_bad = begin + r.first_bad;
      all.first_got = r.first_got;
      all.first_want = r.first_want;
    }
    all.bad += r.bad;
    if (r.max_abs_err > all.max_abs_err) all.max_abs_err = r.max_abs_err;
    if (r.max_rel_err > all.max_rel_err) all.max_rel_err = r.max_rel_err;
  }
  free(want);
  free(scale);
  if (all.bad == 0) return 0;
  char line[256];
  format_report(&all, line, sizeof line);
  snprintf(err, errlen, "%s: %s", what, line);
  return -1;
}
