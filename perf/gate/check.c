/* gate check: runs a family's benchmark binary and compares it with the baseline of its GPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/gate_cli.h"
#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

/* A benchmark binary that is not there is bad input, found before the fork; after it, a
 * failed exec would look like a failed benchmark. */
static void check_bench_binary(const char *bench) {
  struct stat st;
  if (stat(bench, &st) != 0) {
    fprintf(stderr, "gate: --bench=%s: %s: build the benchmark binary, or fix the path\n", bench,
            errno == ENOENT ? "no such file" : strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
  if (!S_ISREG(st.st_mode)) {
    fprintf(stderr, "gate: --bench=%s: not a file: give the benchmark binary\n", bench);
    exit(EXIT_BAD_INPUT);
  }
  if (access(bench, X_OK) != 0) {
    fprintf(stderr, "gate: --bench=%s: not executable (%s): give the benchmark binary, or chmod +x it\n", bench,
            strerror(errno));
    exit(EXIT_BAD_INPUT);
  }
}

static int is_flag(const char *arg, const char *name) {
  size_t len = strlen(name);
  return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

/* The gate tells the benchmark where to write its run JSON and in which format; the
 * benchmark's own --benchmark_out would send it elsewhere and leave nothing to compare. The
 * warm-up is the gate's too (--warmup), so that the re-measure is made the same way. */
static void refuse_out_flags(const options *o) {
  for (int i = 0; i < o->nrest; i++) {
    if (is_flag(o->rest[i], "--benchmark_out") || is_flag(o->rest[i], "--benchmark_out_format")) {
      fprintf(stderr,
              "gate: %s after --: the gate sets it (the run JSON goes to --out_dir, as JSON); leave it out "
              "and give --out_dir=DIR to choose the folder\n",
              o->rest[i]);
      exit(EXIT_BAD_INPUT);
    }
    if (is_flag(o->rest[i], "--benchmark_min_warmup_time")) {
      fprintf(stderr,
              "gate: %s after --: the gate sets it from --warmup=S (the first run and the re-measure alike, "
              "as the baseline's runs were made); leave it out and give gate check --warmup=S\n",
              o->rest[i]);
      exit(EXIT_BAD_INPUT);
    }
  }
}

/* No baseline for this GPU in the folder: a loud warning, a candidate baseline, and a summary.md that says so (the
 * job's summary and a soak's rounds read it; without it a new user's first soak said "no perf summaries"). */
static int no_baseline(const options *o, const char *out_dir, const char *bench_name, gate_figures *run,
                       const char *base_path) {
  char cand[4096], err[1024];
  format_path(cand, sizeof cand, "%s/%s.candidate.json", out_dir, run->gpu.slug);
  if (save_baseline(cand, run, err, sizeof err)) {
    fprintf(stderr, "gate: no baseline for %s at %s, and the candidate baseline could not be written: %s\n",
            run->gpu.name, base_path, err);
    return EXIT_BAD_INPUT;
  }
  write_summary_note(out_dir,
                     "## %s on %s: NOT JUDGED (no baseline of this GPU yet)\n\n`%s` does not exist: %zu benchmark(s) "
                     "measured, nothing compared. To gate this GPU against a baseline, bless runs of it "
                     "(`ci/soak.sh 2`, then `ci/bless.sh soak/round*`).\n",
                     bench_name, run->gpu.name, base_path, run->n);
  fprintf(stderr,
          "\n*** WARNING: no baseline for %s (%s): nothing was compared. ***\n"
          "*** Candidate written to %s; adopt it (better: several runs) with:\n"
          "***   bazel run //perf/gate:bless -- --baselines=baselines RUN.json [RUN.json...]\n\n",
          run->gpu.name, base_path, cand);
  free_figures(run);
  return o->strict ? EXIT_REGRESSION : EXIT_PASS;
}

/* This family's part of the GPU's baseline (a view into *base), or exits 2 when the
 * baseline is of other hardware (family_same_method checks how it was measured). */
static void family_baseline(const baseline_place *pl, const gate_figures *run, gate_figures *base,
                            gate_figures *family_base) {
  char err[1024];
  const char *base_path = pl->path;
  if (baseline_load(pl, run, base, err, sizeof err)) { /* in a folder of families, this family's file alone */
    fprintf(stderr, "gate: %s\n", err);
    exit(EXIT_BAD_INPUT);
  }
  if (same_hardware(&base->gpu, &run->gpu, err, sizeof err)) {
    fprintf(stderr, "gate: this GPU does not match the baseline %s: %s\n", base_path, err);
    exit(EXIT_BAD_INPUT);
  }
  families_of(base, run, family_base);
}

/* Exits 2 unless the family's baseline was measured as the run was. */
static void family_same_method(const char *base_path, const char *bench_name, const gate_figures *run,
                               const gate_figures *family_base) {
  char err[1024];
  if (same_method(family_base, run, err, sizeof err)) {
    fprintf(stderr, "gate: baseline %s: %s\n", base_path, err);
    fprintf(stderr,
            "gate: this run's JSON (%s.json) is kept with the test's outputs (bazel-testlogs/<package>/<test>/"
            "test.outputs/, or artifacts/perf/<test>/ after ci/gate.sh); to re-bless, adopt three or more such runs:\n"
            "  bazel run //perf/gate:bless -- --baselines=baselines RUN.json [RUN.json...]   (or ci/bless.sh)\n",
            bench_name);
    exit(EXIT_BAD_INPUT);
  }
}

/* Re-measures what looks slower in a fresh process before calling it a regression: a confirmed one
 * keeps the re-measured figures, one not confirmed becomes "same"; notes say which. Only the suspects
 * are measured again, so a failing run costs what failed, not its family again. */
static void recheck_slower(const options *o, const char *recheck_path, const gate_figures *family_base, comparison *c,
                           size_t n, char **notes) {
  options alone = *o;
  alone.filter = suspects_filter(c, n);
  printf("\n%zu benchmark(s) look slower; re-measuring them in a fresh process\n",
         count_verdicts(c, n, VERDICT_SLOWER));
  measure_bench(&alone, NULL, recheck_path, 1);
  gate_figures again;
  load_or_die(recheck_path, &again, 0);
  confirm_slower(family_base, &again, &o->policy, c, n, notes);
}

/* OTHER_KINDS: a reading against other GPU kinds alone (the testbed has no run of this GPU, and too few or none
 * of its GPU kind: REF_ALL_GPUS, REF_OTHER_KINDS) can be the kinds' difference, not the change's: on a 2-GPU H200 host
 * of no GPU kind in the baseline, unchanged code read reduce/v7_shuffle_vec4 2^28 +4.37 %, and +4.12 % re-measured,
 * against 3.0 % allowed (docs/RESULTS.md, #55 U4), and such hosts read transposes and matmuls 3-4 % faster. With a
 * base revision to A/B against, such a reading is settled A/B on this GPU instead (a re-measure against the same
 * runs would only repeat it): OTHER_KINDS_SLOWER, a suspect, always measured; OTHER_KINDS_FASTER, unchanged when
 * its timed work is the same as at the base. */
enum { OTHER_KINDS_NONE, OTHER_KINDS_SLOWER, OTHER_KINDS_FASTER };
static int other_kinds_reading(const comparison *x) {
  gate_reference r = reference_of(x);
  if (r != REF_ALL_GPUS && r != REF_OTHER_KINDS) return OTHER_KINDS_NONE;
  if (x->v == VERDICT_SLOWER && verdict_fails(x)) return OTHER_KINDS_SLOWER;
  return x->v == VERDICT_FASTER ? OTHER_KINDS_FASTER : OTHER_KINDS_NONE;
}

/* The benchmarks the baseline cannot judge, judged A/B against the base revision instead (ab_judge): those the
 * testbed has no run of (new: the baseline has no run of them here, or none at all) and the readings of other GPU
 * kinds alone (kinds[i], OTHER_KINDS). Their verdicts replace c's; a benchmark not measured A/B keeps the first run's
 * figures for the report, and the note of a reading of other GPU kinds keeps what they read. */
static void judge_ab_instead(options *o, const char *out_dir, const char *bench_name, comparison *c, size_t n,
                             char **notes, const int *kinds) {
  char **names = calloc(n + 1, sizeof *names), **suspects = calloc(n + 1, sizeof *suspects);
  size_t k = 0, nsuspects = 0, nkinds = 0;
  for (size_t i = 0; i < n; i++) {
    if (c[i].v == VERDICT_NEW || kinds[i]) names[k++] = (char *)c[i].name;
    if (kinds[i] == OTHER_KINDS_SLOWER) suspects[nsuspects++] = (char *)c[i].name;
    nkinds += kinds[i] != OTHER_KINDS_NONE;
  }
  if (k > nkinds)
    printf("\n%zu benchmark(s) have no run of this testbed in the baseline: judging them A/B against %s\n", k - nkinds,
           o->against);
  if (nkinds)
    printf(
        "\n%zu benchmark(s) read slower (%zu) or faster against other kinds of GPU alone (the baseline has no run "
        "of this GPU's kind): judging them A/B against %s\n",
        nkinds, nsuspects, o->against);
  ab_result ar;
  if (k) ab_judge(o, out_dir, bench_name, names, k, suspects, nsuspects, &ar);
  for (size_t j = 0; k && j < ar.n; j++)
    for (size_t i = 0; i < n; i++) {
      if (strcmp(c[i].name, ar.c[j].name) != 0) continue;
      comparison x = ar.c[j];
      if (x.v == VERDICT_UNCHANGED || x.v == VERDICT_NEW) { /* the first run's figures, for the report */
        x.run_ns = c[i].run_ns;
        x.run_gbps = c[i].run_gbps;
        x.run_copy_frac = c[i].run_copy_frac;
        x.run_contexts = c[i].run_contexts;
        x.run_samples = c[i].run_samples;
      }
      x.testbed = c[i].testbed;
      if (kinds[i]) {
        x.reasons |= REASON_OTHER_KINDS_DIFFER;
        char *both = xasprintf("%s %s", notes[i], ar.notes[j] ? ar.notes[j] : "");
        free(notes[i]);
        notes[i] = both;
      } else {
        notes[i] = ar.notes[j];
      }
      c[i] = x;
    }
  free(names);
  free(suspects);
}

int cmd_check(options *o) {
  if (!o->bench || !o->baselines) usage("check needs --bench=BIN and --baselines=DIR");
  check_baselines_folder(o->baselines);
  check_bench_binary(o->bench);
  refuse_out_flags(o);
  const char *out_dir = o->out_dir ? o->out_dir : getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  if (!out_dir) out_dir = ".";
  make_out_dir_or_die(out_dir);
  const char *bench_name = strrchr(o->bench, '/') ? strrchr(o->bench, '/') + 1 : o->bench;
  /* A/B: ci/gate.sh builds the base revision and names its bazel-bin in PERF_AB_BASE: for every benchmark
   * with PERF_AB_ALL=1 (--against=REV, or a testbed with no run in the baselines), else for those the
   * baseline has no run of this testbed of (judge_uncovered_ab). */
  const char *ab_base = getenv("PERF_AB_BASE"), *ab_all = getenv("PERF_AB_ALL");
  int fallback = o->against_bench && o->against_uncovered;
  if (!o->against_bench && ab_base && *ab_base) {
    struct stat st;
    if (stat(ab_base, &st) != 0 || !S_ISDIR(st.st_mode)) {
      fprintf(stderr,
              "gate: PERF_AB_BASE=%s: not a folder: give the bazel-bin of the base revision's build "
              "(ci/gate.sh does)\n",
              ab_base);
      return EXIT_BAD_INPUT;
    }
    o->against_bench = xasprintf("%s/%s", ab_base, o->bench);
    const char *label = getenv("PERF_AB_AGAINST");
    o->against = label && *label ? label : ab_base;
    fallback = !(ab_all && strcmp(ab_all, "1") == 0);
  }
  if (o->against_bench && !fallback) return cmd_check_ab(o, out_dir, bench_name);
  if (fallback && !o->against) o->against = o->against_bench;
  char run_path[4096], recheck_path[4096], base_path[4096];
  format_path(run_path, sizeof run_path, "%s/%s.json", out_dir, bench_name);
  format_path(recheck_path, sizeof recheck_path, "%s/%s.recheck.json", out_dir, bench_name);
  remove_stale(out_dir, strrchr(run_path, '/') + 1);
  remove_stale(out_dir, strrchr(recheck_path, '/') + 1);
  remove_stale(out_dir, "verdicts.json");
  remove_stale(out_dir, "summary.md");

  measure_bench(o, NULL, run_path, 0);
  gate_figures run, base, family_base;
  load_or_die(run_path, &run, 0);
  baseline_place place;
  int have_baseline = find_baseline_or_die(o->baselines, run.gpu.slug, &place);
  format_path(base_path, sizeof base_path, "%s", place.path);
  if (!have_baseline && !fallback) return no_baseline(o, out_dir, bench_name, &run, base_path);
  comparison *c;
  size_t n;
  if (have_baseline) {
    family_baseline(&place, &run, &base, &family_base);
    int none_of_testbed = no_runs_of_testbed(&family_base, &run);
    if (none_of_testbed && !fallback) return no_testbed_runs(o, base_path, &run, out_dir, bench_name);
    if (!none_of_testbed) family_same_method(base_path, bench_name, &run, &family_base);
    warn_unknown_families(&o->policy, &run, &base, &place);
    n = compare_figures(&family_base, &run, &o->policy, &c);
  } else { /* no baseline of this GPU model at all: every benchmark is new to it */
    memset(&family_base, 0, sizeof family_base);
    family_base.gpu = run.gpu;
    n = compare_figures(&family_base, &run, &o->policy, &c);
  }
  char **notes = calloc(n + 1, sizeof *notes);
  int *kinds = calloc(n + 1, sizeof *kinds);
  for (size_t i = 0; fallback && i < n; i++)
    if ((kinds[i] = other_kinds_reading(&c[i]))) { /* settled A/B below, not re-measured against the baseline */
      notes[i] = xasprintf("(the baseline's other kinds of GPU read it %+.2f%%, allowed %.1f%%)", 100 * c[i].delta,
                           100 * c[i].threshold);
      c[i].v = VERDICT_SAME;
    }
  if (count_verdicts(c, n, VERDICT_SLOWER) && o->recheck) recheck_slower(o, recheck_path, &family_base, c, n, notes);
  if (fallback) judge_ab_instead(o, out_dir, bench_name, c, n, notes, kinds);
  free(kinds);
  o->against = NULL; /* the family was judged against the baseline; each A/B verdict names its revision */
  size_t unjudged = 0;
  for (size_t i = 0; i < n; i++) unjudged += c[i].v == VERDICT_NEW;
  if (unjudged && !fallback)
    fprintf(stderr,
            "\n*** NOT JUDGED: %zu benchmark(s) of %s have no run of this testbed in the baseline and no base "
            "revision was given to A/B them against (ci/gate.sh gives the merge base): run ci/gate.sh, or bless them "
            "in on this host. ***\n\n",
            unjudged, bench_name);
  char *none_in_base = nothing_in_baseline(c, n, base_path, bench_name, 0, o->strict);
  o->summary_note = nothing_in_baseline(c, n, base_path, bench_name, 1, o->strict);
  printf("\n");
  gate_report report = report_of(o, bench_name, &run, c, n, (const char *const *)notes);
  console_table_reporter.write(stdout, &report, NULL, 0);
  int unwritten = write_reports(out_dir, &report);
  int bad = report_failures(c, n) || (none_in_base && o->strict);
  size_t added = count_verdicts(c, n, VERDICT_NEW);
  char *not_gated =
      added && added < n ? xasprintf(" (%zu of %zu not in the baseline: not gated)", added, n) : xasprintf("%s", "");
  /* "compared": judged against a comparison side and measured; new and unchanged ones were not (#56: "9 compared"
   * of 9 new) */
  size_t compared = n - added - count_verdicts(c, n, VERDICT_UNCHANGED);
  printf("\n%s: %zu benchmarks, %zu compared, %zu slower, %zu faster, %zu new%s, %zu missing. Run JSON: %s\n",
         bad ? "FAIL" : "PASS", n, compared, count_verdicts(c, n, VERDICT_SLOWER), count_verdicts(c, n, VERDICT_FASTER),
         added, not_gated, count_verdicts(c, n, VERDICT_MISSING), run_path);
  free(not_gated);
  if (none_in_base) fprintf(stderr, "\n*** %s ***\n\n", none_in_base);
  free(none_in_base);
  free((char *)o->summary_note);
  if (unwritten) {
    fprintf(stderr,
            "gate: %d report(s) could not be written (see above): the check fails (exit 2) rather than leave "
            "its outputs incomplete\n",
            unwritten);
    return EXIT_BAD_INPUT;
  }
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}
