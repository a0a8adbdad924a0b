/* gate compare: a run already measured, judged against a baseline as gate check did or would now
 * (gate_main.c's header says how; ci/soak.sh --rejudge). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/gate/baseline_store.h"
#include "perf/gate/gate_cli.h"
#include "perf/gate/gate_reporter.h"
#include "perf/gate/report.h"

/* RUN.json's name without its folder and ".json": the benchmark's, as gate check names it. */
static char *bench_name_of(const char *run_path) {
  const char *base = strrchr(run_path, '/') ? strrchr(run_path, '/') + 1 : run_path;
  size_t len = strlen(base);
  if (len > 5 && !strcmp(base + len - 5, ".json")) len -= 5;
  return xasprintf("%.*s", (int)len, base);
}

int cmd_compare(options *o) {
  if ((!o->baseline == !o->baselines) || o->nrest != 1)
    usage("compare needs --baseline=FILE or --baselines=DIR, and one RUN.json");
  char b1[4096], b2[4096], b3[4096], b4[4096], b5[4096], err[1024] = "";
  /* Made (or refused) first, as gate check does: not found missing after the run was judged. */
  const char *out_dir = o->out_dir ? user_path(o->out_dir, b5, sizeof b5) : NULL;
  if (out_dir) make_out_dir_or_die(out_dir);
  const char *baselines = o->baselines ? user_path(o->baselines, b4, sizeof b4) : NULL;
  if (baselines) check_baselines_folder(baselines); /* as gate check: a typo is not a missing <gpu>.json */
  if (o->baseline && !*o->baseline) usage("--baseline= is empty: give the baseline file (or folder of families)");
  gate_figures base, run, again;
  int have_again = 0;
  load_or_die(user_path(o->rest[0], b2, sizeof b2), &run, 0);
  /* --baselines: the baseline of the GPU the run was measured on, as gate check picks it (a folder of families:
   * the run's family alone); --baseline: that file, or that folder of families. */
  baseline_place place = {.per_family = 0};
  if (o->baselines) {
    find_baseline_or_die(baselines, run.gpu.slug, &place);
  } else {
    baseline_place_of(user_path(o->baseline, b1, sizeof b1), &place);
  }
  const char *base_path = place.path;
  if (baseline_load(&place, &run, &base, err, sizeof err)) {
    fprintf(stderr, "gate: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  if (same_hardware(&base.gpu, &run.gpu, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], base_path, err);
    return EXIT_BAD_INPUT;
  }
  gate_figures family_base;
  families_of(&base, &run, &family_base);
  char *bench_name = bench_name_of(o->rest[0]);
  if (no_runs_of_testbed(&family_base, &run)) { /* as gate check without a base revision: NOT JUDGED */
    int status = no_testbed_runs(o, base_path, &run, out_dir, bench_name);
    free(bench_name);
    free(family_base.b);
    free_figures(&base);
    free_figures(&run);
    return status;
  }
  if (same_method(&family_base, &run, err, sizeof err)) {
    fprintf(stderr, "gate: %s against %s: %s\n", o->rest[0], base_path, err);
    return EXIT_BAD_INPUT;
  }
  warn_unknown_families(&o->policy, &run, &base, &place);
  comparison *c;
  size_t n = compare_figures(&family_base, &run, &o->policy, &c);
  char **notes = calloc(n + 1, sizeof *notes);
  if (o->recheck_file) {
    load_or_die(user_path(o->recheck_file, b3, sizeof b3), &again, 0);
    have_again = 1;
    if (same_hardware(&run.gpu, &again.gpu, err, sizeof err) || strcmp(run.runs[0].gpu_uuid, again.runs[0].gpu_uuid)) {
      fprintf(stderr, "gate: %s is not a re-measure of %s: %s; give the <bench>.recheck.json written beside it\n",
              o->recheck_file, o->rest[0], err[0] ? err : "measured on another GPU");
      return EXIT_BAD_INPUT;
    }
    confirm_slower(&family_base, &again, &o->policy, c, n, notes); /* c may point into again */
  } else {
    /* gate check would have re-measured it (ci/soak.sh --rejudge of a round that saw nothing slower). */
    for (size_t i = 0; i < n; i++)
      if (c[i].v == VERDICT_SLOWER) notes[i] = xasprintf("(not re-measured: unconfirmed)");
  }
  /* As gate check: a run none of whose benchmarks is in the baseline is said, and fails with --strict. */
  char *none_in_base = nothing_in_baseline(c, n, base_path, bench_name, 0, o->strict);
  o->summary_note = nothing_in_baseline(c, n, base_path, bench_name, 1, o->strict);
  gate_report report = report_of(o, bench_name, &run, c, n, (const char *const *)notes);
  console_table_reporter.write(stdout, &report, NULL, 0);
  int unwritten = out_dir ? write_reports(out_dir, &report) : 0;
  free(bench_name);
  free((char *)o->summary_note);
  free(family_base.b);
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (c[i].v == VERDICT_SLOWER || c[i].v == VERDICT_MISSING) {
      char msg[1024];
      failure_message(&c[i], msg, sizeof msg);
      printf("%s %s\n", failure_label(&c[i]), msg);
      bad |= verdict_fails(&c[i]);
    }
  if (none_in_base) fprintf(stderr, "\n*** %s ***\n\n", none_in_base);
  bad |= none_in_base && o->strict;
  free(none_in_base);
  for (size_t i = 0; i < n; i++) free(notes[i]);
  free(notes);
  free(c);
  free_figures(&base);
  free_figures(&run);
  if (have_again) free_figures(&again);
  if (unwritten) {
    fprintf(stderr, "gate: %d report(s) could not be written in %s (see above)\n", unwritten, out_dir);
    return EXIT_BAD_INPUT;
  }
  return bad ? EXIT_REGRESSION : EXIT_PASS;
}
