/* Benchmark name filters with Google Benchmark's --benchmark_filter semantics
 * (pure C, POSIX extended regular expressions):
 *   ""  "all"  "."     match every benchmark
 *   "<regex>"          benchmarks whose name contains a match of <regex>
 *   "-<regex>"         benchmarks whose name does NOT contain a match
 */
#ifndef PERF_RUNNER_FILTER_H
#define PERF_RUNNER_FILTER_H

#include <regex.h>
#include <stddef.h>

typedef struct {
  regex_t re;
  int compiled; /* re holds a compiled regex (free it) */
  int negate;
  int match_all;
} bench_filter;

/* Returns 0, or -1 with a message naming the bad expression in err. */
int filter_compile(bench_filter *f, const char *spec, char *err, size_t errlen);
int filter_match(const bench_filter *f, const char *name);
void filter_free(bench_filter *f);

#endif
