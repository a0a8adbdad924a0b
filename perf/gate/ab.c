/* gate check in A/B mode: the change's benchmark binary against the base revision's, measured in
 * turn on this GPU, so that what the host and the GPU add is the same on both sides.
 *
 * A runner whose testbed has no baseline (a new host class) is gated this way from its first day
 * (ci/gate.sh --against=REV, the merge base by default). The statistics are the gate's: the base
 * revision's processes are the baseline's runs, all on this GPU, so the change is judged as a
 * runner against its own runs (compare.h): max(own_tolerance, k_noise x the most a base process
 * was slower than their median), a one-sided test on the context medians, the absolute floor; and
 * a slower verdict stands only if a fresh pair of processes confirms it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perf/gate/gate_cli.h"
#include "perf/gate/report.h"

/* 1 when the two files hold the same bytes; 0 when they differ; exits 2 when one cannot be read. */
static int same_bytes(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  if (!fa || !fb) {
    fprintf(stderr, "gate: cannot read %s: %s\n", fa ? b : a, strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
  char x[65536], y[65536];
  int same = 1;
  for (;;) {
    size_t n = fread(x, 1, sizeof x, fa), m = fread(y, 1, sizeof y, fb);
    if (n != m || memcmp(x, y, n) != 0) {
      same = 0;
      break;
    }
    if (n == 0) break;
  }
  fclose(fa);
  fclose(fb);
  return same;
}

/* summary.md for a family that is not measured, and the same words on stdout. */
static int not_measured(const char *out_dir, const char *bench_name, const char *against, const char *why) {
  char path[4200];
  format_path(path, sizeof path, "%s/summary.md", out_dir);
  FILE *f = fopen(path, "w");
  char err[1024];
  if (!f || (fprintf(f, "## %s, A/B against %s: %s\n\n", bench_name, against, why), close_report(f, path, err, sizeof err))) {
    fprintf(stderr, "gate: cannot write %s\n", path);
    return EXIT_BAD_INPUT;
  }
  printf("PASS: %s, A/B against %s: %s\n", bench_name, against, why);
  return EXIT_PASS;
}

/* The runs of files[0..n) merged into one set (each process is one run), or exits 2. */
static void merged(char **files, size_t n, gate_figures *out) {
  gate_figures *runs = calloc(n, sizeof *runs);
  char err[1024];
  for (size_t i = 0; i < n; i++) load_or_die(files[i], &runs[i], 0);
  if (merge_runs(runs, n, out, err, sizeof err)) {
    fprintf(stderr, "gate: A/B: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  for (size_t i = 0; i < n; i++) free_figures(&runs[i]);
  free(runs);
}

/* Both sides ran on this GPU of this host: a base revision whose runner predates the testbed (or
 * names it otherwise) is on the change's testbed all the same. */
static void same_testbed(gate_figures *base, const gate_figures *change) {
  for (size_t i = 0; i < base->nruns; i++)
    snprintf(base->runs[i].testbed, sizeof base->runs[i].testbed, "%s", change->runs[0].testbed);
}

int cmd_check_ab(options *o, const char *out_dir, const char *bench_name) {
  const char *against = o->against ? o->against : o->against_bench;
  o->against = against;
  struct stat st;
  if (stat(o->against_bench, &st) != 0)
    return not_measured(out_dir, bench_name, against,
                        "new in this change (the base revision has no such benchmark binary): not compared");
  if (same_bytes(o->bench, o->against_bench))
    return not_measured(out_dir, bench_name, against, "unchanged (the benchmark binary and its kernels are identical "
                        "on both sides): not measured");
  int pairs = o->pairs > 0 ? o->pairs : 2;
  /* Each side's processes: the change's first run is <bench>.json, as gate check names it. */
  char **base = calloc((size_t)pairs + 2, sizeof *base), **change = calloc((size_t)pairs + 2, sizeof *change);
  for (int k = 0; k < pairs + 1; k++) {
    base[k] = xasprintf("%s/%s.base%d.json", out_dir, bench_name, k + 1);
    change[k] = k == 0 ? xasprintf("%s/%s.json", out_dir, bench_name)
                       : xasprintf("%s/%s.change%d.json", out_dir, bench_name, k + 1);
    remove_stale(out_dir, strrchr(base[k], '/') + 1);
    remove_stale(out_dir, strrchr(change[k], '/') + 1);
  }
  remove_stale(out_dir, "verdicts.json");
  remove_stale(out_dir, "summary.md");
  /* ABBA...: base, change, change, base: a drift of the GPU or host over the minutes this takes
   * falls on both sides alike. */
  printf("A/B against %s: %d pairs of processes on this GPU\n", against, pairs);
  for (int k = 0; k < pairs; k++) {
    int base_first = k % 2 == 0;
    measure_bench(o, base_first ? o->against_bench : NULL, base_first ? base[k] : change[k], 0);
    measure_bench(o, base_first ? NULL : o->against_bench, base_first ? change[k] : base[k], 0);
  }
  gate_figures b, r;
  merged(base, (size_t)pairs, &b);
  merged(change, (size_t)pairs, &r);
  same_testbed(&b, &r);
  char err[1024];
  if (same_hardware(&b.gpu, &r.gpu, err, sizeof err) || same_method(&b, &r, err, sizeof err)) {
    fprintf(stderr, "gate: A/B: the two sides were not measured alike: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  comparison *c;
  size_t n = compare_figures(&b, &r, &o->policy, &c);
  char **notes = calloc(n + 1, sizeof *notes);
  gate_figures b_all, again; /* kept to the end: a confirmed verdict's fields point into them */
  if (count_verdicts(c, n, VERDICT_SLOWER) && o->recheck) {
    /* The same confirmation as against a baseline: a fresh process of the change, judged against
     * every base process, with one more base process after it. */
    printf("\n%zu benchmark(s) look slower; re-measuring the change and the base in fresh processes\n",
           count_verdicts(c, n, VERDICT_SLOWER));
    measure_bench(o, NULL, change[pairs], 1);
    measure_bench(o, o->against_bench, base[pairs], 1);
    merged(base, (size_t)pairs + 1, &b_all);
    load_or_die(change[pairs], &again, 0);
    same_testbed(&b_all, &again);
    confirm_slower(&b_all, &again, &o->policy, c, n, notes);
  }
  printf("\n");
  print_table(stdout, c, n, (const char *const *)notes, o->policy.metric);
  int unwritten = write_reports(o, out_dir, bench_name, &r, c, n, (const char *const *)notes);
  int bad = report_failures(c, n);
  printf("\n%s: A/B against %s, %zu compared, %zu slower, %zu faster, %zu new, %zu missing. Run JSON: %s\n",
         bad ? "FAIL" : "PASS", against, n, count_verdicts(c, n, VERDICT_SLOWER), count_verdicts(c, n, VERDICT_FASTER),
         count_verdicts(c, n, VERDICT_NEW), count_verdicts(c, n, VERDICT_MISSING), change[0]);
  if (unwritten) {
    fprintf(stderr, "gate: %d report(s) could not be written (see above): the check fails (exit 2)\n", unwritten);
    return EXIT_BAD_INPUT;
  }
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}
