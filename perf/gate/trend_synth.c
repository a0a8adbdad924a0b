/* trend_synth: a synthetic history CSV with the run-to-run noise of a real one, for measuring
 * `gate trends` and the renderer (docs/report.md says which figures came from it).
 *
 *   trend_synth --from=HISTORY.csv [--runs=N (40)] [--shape=flat|steps|ramp] [--step=F (0.01)]
 *               [--every=N (7)] [--count=N (5)] [--seed=S (1)] OUT.csv
 *   trend_synth --from=HISTORY.csv --score [--step=F] [--every=N] [--count=N]
 *
 * Every benchmark of HISTORY with 5 rows or more of the "read" L2 flush gets N rows (one per run:
 * date and commit shared by all benchmarks of a run), time = level x its median there x (1 + one
 * of its own residuals, time / median - 1, drawn at random). Level: flat 1; steps: x (1 + step)
 * at rows every, 2 x every, ... (count steps); ramp: x (1 + step) every row.
 *
 * --score measures the detector (find_change_points, defaults) on such histories instead of writing
 * one: `steps` histories of every x (count + 1) - 2 runs (40 for 5 steps 7 rows apart: the last step
 * has 5 rows after it) with seeds 1..10, and `flat` ones of 200 runs with seeds 1..40. A step is
 * found when a change point lies within 2 rows of it and reads within +-step/2 of its size. It
 * prints, for the quiet benchmarks (residuals' standard deviation under 0.5 %) and for all: the
 * steps found, the series with every step found, and the change points in the flat histories; and
 * the same count for change points placed at the true rows and kept by the detector's own rule
 * (trend_keep_steps): the most any placement could find. */
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
  double sd; /* the residuals' standard deviation */
} source;

/* One run's time of s at level. */
static double draw(const source *s, double level) {
  return level * s->median * (1 + s->residual[(size_t)(uniform() * (double)s->n)]);
}

static double level_at(const char *shape, long r, double step, long every, long count) {
  if (!strcmp(shape, "steps")) return pow(1 + step, (double)(r / every < count ? r / every : count));
  if (!strcmp(shape, "ramp")) return pow(1 + step, (double)r);
  return 1;
}

/* Synthetic histories of `runs` rows of every source, seed by seed; x[b * runs + r]. */
static void draw_all(const source *src, size_t nsrc, const char *shape, long runs, double step, long every, long count,
                     uint64_t seed, double *x) {
  state = seed;
  for (long r = 0; r < runs; r++) {
    double level = level_at(shape, r, step, every, count);
    for (size_t b = 0; b < nsrc; b++) x[b * (size_t)runs + (size_t)r] = draw(&src[b], level);
  }
}

/* How many of the steps (rows every, 2 x every, ...) the change points c[0..k) found: within 2 rows,
 * within +-step/2 of the step's size. */
static long steps_found(const change_point *c, size_t k, double step, long every, long count) {
  long found = 0;
  for (long j = 1; j <= count; j++) {
    size_t at = (size_t)(j * every);
    int hit = 0;
    for (size_t i = 0; i < k && !hit; i++)
      hit = c[i].index + 2 >= at && c[i].index <= at + 2 && fabs(c[i].step - step) <= step / 2;
    found += hit;
  }
  return found;
}

enum { QUIET, ALL };

static void score(const source *src, size_t nsrc, double step, long every, long count) {
  trend_params p = trend_defaults();
  long runs = every * (count + 1) - 2, flat_runs = 200;
  long found[2] = {0}, all_found[2] = {0}, oracle[2] = {0}, oracle_all[2] = {0}, series[2] = {0}, noise_cp[2] = {0},
       noise_series[2] = {0};
  size_t quiet = 0;
  for (size_t b = 0; b < nsrc; b++) quiet += src[b].sd < 0.005;
  double *x = malloc(nsrc * (size_t)(runs > flat_runs ? runs : flat_runs) * sizeof *x);
  change_point *truth = malloc((size_t)count * sizeof *truth), *c;
  for (uint64_t seed = 1; seed <= 10; seed++) {
    draw_all(src, nsrc, "steps", runs, step, every, count, seed, x);
    for (size_t b = 0; b < nsrc; b++) {
      const double *xb = x + b * (size_t)runs;
      size_t k = find_change_points(xb, (size_t)runs, &p, &c);
      long f = steps_found(c, k, step, every, count);
      free(c);
      for (long j = 0; j < count; j++) truth[j] = (change_point){.index = (size_t)((j + 1) * every), .p = 0};
      long o = steps_found(truth, trend_keep_steps(xb, (size_t)runs, truth, (size_t)count, &p), step, every, count);
      for (int g = QUIET; g <= ALL; g++) {
        if (g == QUIET && src[b].sd >= 0.005) continue;
        found[g] += f, all_found[g] += f == count, oracle[g] += o, oracle_all[g] += o == count, series[g]++;
      }
    }
  }
  for (uint64_t seed = 1; seed <= 40; seed++) {
    draw_all(src, nsrc, "flat", flat_runs, step, every, count, seed, x);
    for (size_t b = 0; b < nsrc; b++) {
      size_t k = find_change_points(x + b * (size_t)flat_runs, (size_t)flat_runs, &p, &c);
      free(c);
      for (int g = QUIET; g <= ALL; g++) {
        if (g == QUIET && src[b].sd >= 0.005) continue;
        noise_cp[g] += (long)k, noise_series[g]++;
      }
    }
  }
  printf("steps of %+.2f %% every %ld rows, %ld of them, in %ld rows; seeds 1-10. Pure noise: %ld rows, seeds 1-40.\n",
         100 * step, every, count, runs, flat_runs);
  for (int g = QUIET; g <= ALL; g++) {
    long steps = series[g] * count;
    printf(
        "%s (%zu benchmarks): steps found %ld of %ld (%.1f %%), every step in %ld of %ld series (%.1f %%); "
        "at the true rows %ld (%.1f %%), every step in %ld (%.1f %%); change points in pure noise: %ld in %ld series\n",
        g == QUIET ? "quiet" : "all", g == QUIET ? quiet : nsrc, found[g], steps, 100.0 * found[g] / steps,
        all_found[g], series[g], 100.0 * all_found[g] / series[g], oracle[g], 100.0 * oracle[g] / steps, oracle_all[g],
        100.0 * oracle_all[g] / series[g], noise_cp[g], noise_series[g]);
  }
  free(truth);
  free(x);
}

int main(int argc, char **argv) {
  const char *from = NULL, *shape = "flat";
  long runs = 40, every = 7, count = 5;
  int scoring = 0;
  double step = 0.01;
  state = 1;
  static const struct option opts[] = {
      {"from", required_argument, 0, 'f'}, {"runs", required_argument, 0, 'r'},  {"shape", required_argument, 0, 's'},
      {"step", required_argument, 0, 'p'}, {"every", required_argument, 0, 'e'}, {"count", required_argument, 0, 'c'},
      {"seed", required_argument, 0, 'S'}, {"score", no_argument, 0, 'z'},       {0, 0, 0, 0}};
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
      case 'z': scoring = 1; break;
      default: return 2;
    }
  }
  if (!from || optind != argc - !scoring || runs < 1 || every < 1 || count < 1 || step <= 0 ||
      (strcmp(shape, "flat") && strcmp(shape, "steps") && strcmp(shape, "ramp"))) {
    fprintf(stderr,
            "usage: trend_synth --from=HISTORY.csv [--runs=N] [--shape=flat|steps|ramp] [--step=F] "
            "[--every=N] [--count=N] [--seed=S] OUT.csv\n       trend_synth --from=HISTORY.csv --score [--step=F] "
            "[--every=N] [--count=N]\n");
    return 2;
  }
  if (scoring && every < 7) {
    fprintf(stderr,
            "trend_synth: --score: --every=%ld leaves the last step %ld rows after it; the detector needs 5 "
            "(give --every=7 or more)\n",
            every, every - 2);
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
    double sum = 0, sum2 = 0;
    for (size_t k = 0; k < n; k++) {
      s->residual[k] = x[k] / s->median - 1;
      sum += s->residual[k], sum2 += s->residual[k] * s->residual[k];
    }
    s->sd = sqrt(fmax(0, sum2 / (double)n - (sum / (double)n) * (sum / (double)n)));
  }
  if (scoring) {
    score(src, nsrc, step, every, count);
    return 0;
  }
  FILE *out = fopen(argv[optind], "w");
  if (!out) {
    perror(argv[optind]);
    return 2;
  }
  /* The column median_ns keeps its historical name; it holds the run's time (the mean of its context medians). */
  fprintf(out, "date,commit,gpu,benchmark,median_ns,bytes_per_second,noise,verdict,l2_flush\n");
  for (long r = 0; r < runs; r++) {
    double level = level_at(shape, r, step, every, count);
    long minutes = r * 7;
    for (size_t b = 0; b < nsrc; b++) {
      double ns = draw(&src[b], level);
      fprintf(out, "2027-%02ld-%02ldT%02ld:%02ld:00+00:00,%07lx00000,%s,%s,%.6g,%.6g,%.4g,same,read\n",
              1 + minutes / (28 * 24 * 60) % 12, 1 + minutes / (24 * 60) % 28, minutes / 60 % 24, minutes % 60,
              (unsigned long)(0xa000000 + r * 7919 % 0x1000000), src[b].gpu, src[b].name, ns,
              1e12 * 1e-3 * src[b].median / ns, 0.001);
    }
  }
  if (fclose(out) != 0) {
    perror(argv[optind]);
    return 2;
  }
  fprintf(stderr, "trend_synth: %ld runs of %zu benchmarks (%s) into %s\n", runs, nsrc, shape, argv[optind]);
  return 0;
}
