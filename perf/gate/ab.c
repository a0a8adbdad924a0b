/* A/B against a base revision: the change's benchmark binary against the base's, measured in turn
 * on this GPU, so that what the host and the GPU add is the same on both sides.
 *
 * It judges every benchmark of a family whose testbed has no run in the baseline (cmd_check_ab, and
 * ci/gate.sh --against=REV), and, inside a gate check against the baseline, the benchmarks the testbed has
 * no run of (ab_judge with their names). Only what changed is measured: both binaries record what
 * each benchmark's timed region runs (BENCH --fingerprint_out, fingerprint.h), and a benchmark whose
 * kernels' machine code, launches, memsets and copies are the same on both sides is "unchanged".
 * The statistics are the gate's: the base revision's processes are the baseline's runs, all on this
 * GPU, so the change is judged as a runner against its own runs (compare.h): max(own_tolerance,
 * k_noise x the most a base process was slower than their median), a one-sided test on the context
 * medians, the absolute floor; and a slower verdict stands only if a fresh pair of processes,
 * measuring the suspects alone, confirms it. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/gate/fingerprint.h"
#include "perf/gate/gate_cli.h"
#include "perf/gate/gate_reporter.h"

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

static int has_name(char **names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
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

/* Records what each of `names` runs in its timed region (BENCH --fingerprint_out) into *f; 0, or 1
 * after saying why (the caller then measures them all). */
static int fingerprint(const char *bin, const char *path, const char *filter, fp_file *f) {
  char *argv[4] = {xasprintf("%s", bin), xasprintf("--fingerprint_out=%s", path),
                   xasprintf("--benchmark_filter=%s", filter), NULL};
  if (unlink(path) != 0 && errno != ENOENT) {
    fprintf(stderr, "gate: cannot remove %s of an earlier check: %s\n", path, strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
  int rc = run_child(bin, argv);
  for (int i = 0; argv[i]; i++) free(argv[i]);
  char err[1024];
  if (rc != 0) {
    fprintf(stderr, "gate: A/B: %s --fingerprint_out exited %d (its output above says why)\n", bin, rc);
    return 1;
  }
  if (fp_load(path, f, err, sizeof err)) {
    fprintf(stderr, "gate: A/B: %s\n", err);
    return 1;
  }
  return 0;
}

/* Base and change, ABBA... over `pairs` pairs of processes, each measuring `filter` alone: a drift
 * of the GPU or host over the minutes this takes falls on both sides alike. */
static void measure_pairs(const options *o, char **base, char **change, int pairs) {
  for (int k = 0; k < pairs; k++) {
    int base_first = k % 2 == 0;
    measure_bench(o, base_first ? o->against_bench : NULL, base_first ? base[k] : change[k], 0);
    measure_bench(o, base_first ? NULL : o->against_bench, base_first ? change[k] : base[k], 0);
  }
}

/* One verdict that was not measured: unchanged or new. */
static comparison unmeasured(const char *name, verdict v, unsigned reasons, const char *against) {
  comparison x;
  memset(&x, 0, sizeof x);
  x.name = strdup(name);
  x.v = v;
  x.reasons = reasons;
  x.against = against;
  x.run_ns = x.base_ns = x.delta = x.launch_probe_ns = NAN;
  x.testbed = "";
  return x;
}

void ab_judge(options *o, const char *out_dir, const char *bench_name, char **only, size_t nonly, char **suspects,
              size_t nsuspects, ab_result *res) {
  memset(res, 0, sizeof *res);
  const char *against = o->against;
  size_t n;
  char **names = only ? only : list_benchmarks(o->bench, &n);
  if (only) n = nonly;
  res->c = calloc(n + 1, sizeof *res->c);
  res->notes = calloc(n + 1, sizeof *res->notes);
  res->n = n;
  struct stat st;
  if (stat(o->against_bench, &st) != 0) { /* a family the change adds */
    for (size_t i = 0; i < n; i++) res->c[i] = unmeasured(names[i], VERDICT_NEW, REASON_BASE_LACKS_IT, against);
    printf("A/B against %s: the base revision has no %s: %zu benchmark(s) new\n", against, bench_name, n);
    return;
  }
  if (same_bytes(o->bench, o->against_bench)) {
    for (size_t i = 0; i < n; i++) res->c[i] = unmeasured(names[i], VERDICT_UNCHANGED, REASON_SAME_BINARY, against);
    printf("A/B against %s: %s is the same binary on both sides: %zu benchmark(s) unchanged, not measured\n", against,
           bench_name, n);
    return;
  }
  size_t nbase;
  char **base_names = list_benchmarks(o->against_bench, &nbase);
  /* The benchmarks both sides have: fingerprinted; the rest are new (or, judging the whole family,
   * removed by the change: named, not a failure). */
  char **common = calloc(n + 1, sizeof *common);
  size_t ncommon = 0;
  for (size_t i = 0; i < n; i++)
    if (has_name(base_names, nbase, names[i])) common[ncommon++] = names[i];
  if (!only)
    for (size_t i = 0; i < nbase; i++)
      if (!has_name(names, n, base_names[i])) {
        res->removed = realloc(res->removed, (res->nremoved + 1) * sizeof *res->removed);
        res->removed[res->nremoved++] = base_names[i];
      }
  fp_file fb = {0}, fc = {0};
  int known = 0;
  if (ncommon) {
    char *filter = exact_names_filter(common, ncommon);
    char *fb_path = xasprintf("%s/%s.fingerprint.base.json", out_dir, bench_name);
    char *fc_path = xasprintf("%s/%s.fingerprint.change.json", out_dir, bench_name);
    known =
        fingerprint(o->against_bench, fb_path, filter, &fb) == 0 && fingerprint(o->bench, fc_path, filter, &fc) == 0;
    if (!known)
      fprintf(stderr,
              "\n*** WARNING: what %s's benchmarks run could not be recorded (above): all %zu that both "
              "sides have are measured A/B. ***\n\n",
              bench_name, ncommon);
  }
  /* Classify, then measure the changed ones alone. */
  char **changed = calloc(n + 1, sizeof *changed);
  size_t nchanged = 0;
  for (size_t i = 0; i < n; i++) {
    char why[512] = "";
    fp_class cls = !has_name(base_names, nbase, names[i]) ? FP_NEW
        : known                                           ? fp_classify(&fb, &fc, names[i], why, sizeof why)
                                                          : FP_CHANGED;
    /* A suspect is measured even with the same timed work: something already read it slower, and kernel
     * arguments, which the fingerprint leaves out, could have changed. */
    int suspect = has_name(suspects, nsuspects, names[i]);
    if (cls == FP_NEW)
      res->c[i] = unmeasured(names[i], VERDICT_NEW, REASON_BASE_LACKS_IT, against);
    else if (cls == FP_UNCHANGED && !suspect)
      res->c[i] = unmeasured(names[i], VERDICT_UNCHANGED, REASON_SAME_TIMED_WORK, against);
    else {
      changed[nchanged++] = names[i];
      res->notes[i] = cls == FP_UNCHANGED
          ? xasprintf("(measured: a suspect, though its timed work is the same)")
          : xasprintf("(changed: %s)", known ? why : "its timed work could not be recorded");
    }
  }
  printf("A/B against %s: %zu benchmark(s) of %s changed, %zu unchanged, %zu new%s\n", against, nchanged, bench_name,
         count_verdicts(res->c, n, VERDICT_UNCHANGED), count_verdicts(res->c, n, VERDICT_NEW),
         nchanged ? "; measuring the changed ones" : ": nothing to measure");
  for (size_t i = 0; i < n; i++)
    if (res->notes[i]) printf("  %s %s\n", names[i], res->notes[i]);
  if (!nchanged) return;

  options with = *o;
  with.filter = exact_names_filter(changed, nchanged);
  int pairs = o->pairs > 0 ? o->pairs : 2;
  /* Each side's processes: the change's first run is <bench>.json, as gate check names it. */
  char **base = calloc((size_t)pairs + 2, sizeof *base), **change = calloc((size_t)pairs + 2, sizeof *change);
  for (int k = 0; k < pairs + 1; k++) {
    base[k] = xasprintf("%s/%s.base%d.json", out_dir, bench_name, k + 1);
    change[k] = xasprintf("%s/%s.change%d.json", out_dir, bench_name, k + 1);
    remove_stale(out_dir, strrchr(base[k], '/') + 1);
    remove_stale(out_dir, strrchr(change[k], '/') + 1);
  }
  printf("A/B against %s: %d pairs of processes on this GPU, %zu benchmark(s) each\n", against, pairs, nchanged);
  measure_pairs(&with, base, change, pairs);
  gate_figures *b = calloc(1, sizeof *b), *r = calloc(1, sizeof *r); /* kept: the verdicts point into them */
  merged(base, (size_t)pairs, b);
  merged(change, (size_t)pairs, r);
  same_testbed(b, r);
  res->run = r;
  char err[1024];
  if (same_hardware(&b->gpu, &r->gpu, err, sizeof err) || same_method(b, r, err, sizeof err)) {
    fprintf(stderr, "gate: A/B: the two sides were not measured alike: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  comparison *c;
  size_t nc = compare_figures(b, r, &o->policy, &c);
  char **cnotes = calloc(nc + 1, sizeof *cnotes);
  size_t nslow = count_verdicts(c, nc, VERDICT_SLOWER);
  if (nslow && o->recheck) {
    /* The suspects alone, in a fresh process of the change judged against every base process, with one
     * more base process after it measuring them alike. */
    options confirm = *o;
    confirm.filter = suspects_filter(c, nc);
    printf("\n%zu benchmark(s) look slower; re-measuring them alone, the change and the base in fresh processes\n",
           nslow);
    measure_bench(&confirm, NULL, change[pairs], 1);
    measure_bench(&confirm, o->against_bench, base[pairs], 1);
    gate_figures *b_all = calloc(1, sizeof *b_all), *again = calloc(1, sizeof *again);
    merged(base, (size_t)pairs + 1, b_all);
    load_or_die(change[pairs], again, 0);
    same_testbed(b_all, again);
    confirm_slower(b_all, again, &o->policy, c, nc, cnotes);
  }
  for (size_t j = 0; j < nc; j++) {
    c[j].against = against;
    c[j].reasons &= ~REASON_OTHER_GPUS; /* both sides ran on this GPU: a slower library reference is the environment */
    if (!has_name(changed, nchanged, c[j].name)) continue; /* only what was asked for counts */
    for (size_t i = 0; i < n; i++) {
      if (strcmp(names[i], c[j].name) != 0) continue;
      res->c[i] = c[j];
      if (cnotes[j]) res->notes[i] = xasprintf("%s %s", res->notes[i] ? res->notes[i] : "", cnotes[j]);
    }
  }
}

int cmd_check_ab(options *o, const char *out_dir, const char *bench_name) {
  o->against = o->against ? o->against : o->against_bench;
  remove_stale(out_dir, "verdicts.json");
  remove_stale(out_dir, "summary.md");
  ab_result res;
  ab_judge(o, out_dir, bench_name, NULL, 0, NULL, 0, &res);
  comparison *c = res.c;
  size_t n = res.n;
  if (res.nremoved) {
    char *list = xasprintf("%s", "");
    for (size_t i = 0; i < res.nremoved; i++) {
      char *more = xasprintf("%s%s`%s`", list, i ? ", " : "", res.removed[i]);
      free(list);
      list = more;
    }
    o->summary_note = xasprintf(
        "Removed by this change (the base revision has them, the change does not; not a "
        "failure): %s.",
        list);
    printf("%s\n", o->summary_note);
  }
  printf("\n");
  gate_report report = report_of(o, bench_name, res.run, c, n, (const char *const *)res.notes);
  console_table_reporter.write(stdout, &report, NULL, 0);
  int unwritten = write_reports(out_dir, &report);
  int bad = report_failures(c, n);
  printf("\n%s: A/B against %s, %zu benchmarks: %zu measured, %zu unchanged, %zu new; %zu slower, %zu faster.\n",
         bad ? "FAIL" : "PASS", o->against, n,
         n - count_verdicts(c, n, VERDICT_UNCHANGED) - count_verdicts(c, n, VERDICT_NEW),
         count_verdicts(c, n, VERDICT_UNCHANGED), count_verdicts(c, n, VERDICT_NEW),
         count_verdicts(c, n, VERDICT_SLOWER), count_verdicts(c, n, VERDICT_FASTER));
  if (unwritten) {
    fprintf(stderr, "gate: %d report(s) could not be written (see above): the check fails (exit 2)\n", unwritten);
    return EXIT_BAD_INPUT;
  }
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}
