#include "perf/runner/reporter.h"

int reporter_write(reporter *r, const run_context *ctx, const bench_result *res, size_t n) {
  int rc = r->begin(r, ctx);
  for (size_t i = 0; i < n; i++) rc |= r->result(r, &res[i]);
  return r->end(r) | rc;
}
