#include "perf/runner/filter.h"

#include <stdio.h>
#include <string.h>

int filter_compile(bench_filter *f, const char *spec, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  if (!spec) spec = "";
  if (spec[0] == '-') {
    f->negate = 1;
    spec++;
  }
  if (spec[0] == '\0' || strcmp(spec, "all") == 0 || strcmp(spec, ".") == 0) {
    f->match_all = 1;
    return 0;
  }
  int rc = regcomp(&f->re, spec, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    char why[128];
    regerror(rc, &f->re, why, sizeof why);
    snprintf(err, errlen, "--benchmark_filter: '%s' is not a valid POSIX extended regular expression: %s", spec, why);
    return -1;
  }
  f->compiled = 1;
  return 0;
}

int filter_match(const bench_filter *f, const char *name) {
  int hit = f->match_all || (f->compiled && regexec(&f->re, name, 0, NULL, 0) == 0);
  return f->negate ? !hit : hit;
}

void filter_free(bench_filter *f) {
  if (f->compiled) regfree(&f->re);
  f->compiled = 0;
}
