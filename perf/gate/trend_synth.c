/* trend_synth: a synthetic history CSV with the run-to-run noise of a real one, for measuring
 * `gate trends` and the renderer (docs/report.md says which figures came from it).
 *
 *   trend_synth --from=HISTORY.csv [--runs=N (40)] [--shape=flat|steps|ramp] [--step=F (0.01)]
 *               [--every=N (7)] [--count=N (5)] [--seed=S (1)] OUT.csv
 *
 * Every benchmark of HISTORY with 5 rows or more of the "read" L2 flush gets N rows (one per run:
 * date and commit shared by all benchmarks of a run), time = level x its median there x (1 + one
 * of its own residuals, time / median - 1, drawn at random). Level: flat 1; steps: x (1 + step)
 * at rows every, 2 x every, ... (count steps); ramp: x (1 + step) every row. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/history_csv.h"
#include "perf/gate/trend.h"

static uint64_t state;
static double uniform(void) { return (double)(trend_random(&state) >> 11) / 9007199254740992.0; }

typedef struct {
  const char *name, *gpu;
  double median, *residual;
  size_t n;
} source;

int main(int argc, char **argv) {
  const char *from = NULL, *shape = "flat";
  long runs = 40, every = 7, count = 5;
  double step = 0.01;
  state = 1;
  static const struct option opts[] = {{"from", required_argument, 0, 'f'},  {"runs", required_argument, 0, 'r'},
                                       {"shape", required_argument, 0, 's'}, {"step", required_argument, 0, 'p'},
                                       {"every", required_argument, 0, 'e'}, {"count", required_argument, 0, 'c'},
                                       {"seed", required_argument, 0, 'S'},  {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (c) {
      case 'f': from = optarg; break;
      case 'r': runs = atol(optarg); break;
      case 's': shape = optarg; break;
      case 'p': step = atof(optarg); break;
      case 'e': every = atol(optarg); break;
      case 'c': count = atol(optarg); break;
      case 'S': state = strtoull(optarg, NULL, 10); break;
      default: return 2;
    }
  }
  if (!from || optind != argc - 1 || runs < 1 || every < 1 ||
      (strcmp(shape, "flat") && strcmp(shape, "steps") && strcmp(shape, "ramp"))) {
    fprintf(stderr, "usage: trend_synth --from=HISTORY.csv [--runs=N] [--shape=flat|steps|ramp] [--step=F] "
            "[--every=N] [--count=N] [--seed=S] OUT.csv\n");
    return 2;
  }
  history_table t;
  char err[2048];
  if (history_table_load(from, NULL, &t, err, sizeof err)) {
    fprintf(stderr, "trend_synth: %s\n", err);
    return 2;
  }
  source *src = calloc(t.n, sizeof *src);
  size_t nsrc = 0;
  char *done = calloc(t.n, 1);
  double *x = malloc(t.n * sizeof *x);
  for (size_t i = 0; i < t.n; i++) {
    size_t n = history_read_series(&t, i, done, x);
    if (n < 5) continue;
    source *s = &src[nsrc++];
    s->name = t.r[i].bench;
    s->gpu = t.r[i].gpu[0] ? t.r[i].gpu : "synthetic-gpu";
    s->median = trend_median(x, n);
    s->residual = malloc(n * sizeof *s->residual);
    s->n = n;
    for (size_t k = 0; k < n; k++) s->residual[k] = x[k] / s->median - 1;
  }
  FILE *out = fopen(argv[optind], "w");
  if (!out) {
    perror(argv[optind]);
    return 2;
  }
  fprintf(out, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n");
  for (long r = 0; r < runs; r++) {
    double level = 1;
    if (!strcmp(shape, "steps")) level = pow(1 + step, (double)(r / every < count ? r / every : count));
    if (!strcmp(shape, "ramp")) level = pow(1 + step, (double)r);
    long minutes = r * 7;
    for (size_t b = 0; b < nsrc; b++) {
      double ns = level * src[b].median * (1 + src[b].residual[(size_t)(uniform() * (double)src[b].n)]);
      fprintf(out, "2027-%02ld-%02ldT%02ld:%02ld:00+00:00,%07lx00000,%s,%s,%.6g,%.6g,%.4g,same,read\n",
              1 + minutes / (28 * 24 * 60) % 12, 1 + minutes / (24 * 60) % 28, minutes / 60 % 24, minutes % 60,
              (unsigned long)(0xa000000 + r * 7919 % 0x1000000), src[b].gpu, src[b].name, ns, 1e12 * 1e-3 * src[b].median / ns, 0.001);
    }
  }
  if (fclose(out) != 0) {
    perror(argv[optind]);
    return 2;
  }
  fprintf(stderr, "trend_synth: %ld runs of %zu benchmarks (%s) into %s\n", runs, nsrc, shape, argv[optind]);
  return 0;
}
